/* Logical switch port types; see lsp-types.h. */
#include <config.h>
#include "lib/lsp-types.h"

#include <string.h>
#include "util.h"

bool
lsp_type_is_known(const char *type)
{
    /* "" is an ordinary VIF. */
    static const char *const types[] = {
        "", "router", "localnet", "localport", "l2gateway", "vtep",
        "external", "virtual", "remote",
    };
    for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
        if (!strcmp(type, types[i])) {
            return true;
        }
    }
    return false;
}
