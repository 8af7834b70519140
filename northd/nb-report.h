/* What of the NB this northd does not compile, row by row: the tables,
 * columns, map keys and values that lib/nb.rdb marks "unsupported" (stock
 * OVN 23.03 gives them meaning) or "later" (only a later OVN does), found
 * in the NB's rows.  Each row that starts to use one is logged (rate
 * limited, naming the row and the key); "northd/not-compiled" lists them
 * with counts and examples.  See docs/nb-map.md. */
#ifndef NORTHD_NB_REPORT_H
#define NORTHD_NB_REPORT_H 1

struct ds;
struct rdb;
struct rdb_map;

struct nb_report *nb_report_create(const struct rdb_map *);
void nb_report_destroy(struct nb_report *);

/* Looks at every row of 'nb' (after a full recompute). */
void nb_report_scan(struct nb_report *, const struct rdb *nb);

/* Looks at the rows 'nb' tracked as changed (after an incremental pass). */
void nb_report_scan_tracked(struct nb_report *, const struct rdb *nb);

/* One line per thing not compiled that some row uses; nothing if none. */
void nb_report_format(const struct nb_report *, struct ds *);

#endif /* northd/nb-report.h */
