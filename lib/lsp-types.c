/* Logical switch port types; see lsp-types.h. */
#include <config.h>
#include "lib/lsp-types.h"

#include "lib/nb-rdb.h"
#include "lib/rdb-map.h"
#include "util.h"

bool
lsp_type_is_known(const char *type)
{
    /* The NB map lists them (lib/nb.rdb, Logical_Switch_Port "type"). */
    const struct rdb_map_table *mt
        = rdb_map_get_table(&nb_rdb_map, &nb_table_logical_switch_port);
    const struct rdb_map_column *mc = rdb_map_find_column(mt, "type");
    ovs_assert(mc && mc->values_kind == RDB_MAP_VALUES_LISTED);
    return rdb_map_value_understood(mc, NULL, type);
}
