/* Logical switch port types that stock ovn-controller 23.03 knows.
 *
 * Shared by northd, which skips ports of other types, and the CLI, which
 * refuses to set them. */
#ifndef LSP_TYPES_H
#define LSP_TYPES_H 1

#include <stdbool.h>

bool lsp_type_is_known(const char *type);

#endif /* lib/lsp-types.h */
