/* Internals shared by the replica's parts: rdb.c (rows, decoding, change
 * tracking), rdb-conn.c (the connection and the protocol) and rdb-txn.c
 * (transactions).  Not for users of lib/rdb.h. */
#ifndef LIB_RDB_PRIVATE_H
#define LIB_RDB_PRIVATE_H 1

#include "lib/objpool.h"
#include "lib/rdb.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/list.h"
#include "openvswitch/shash.h"
#include "svec.h"
#include "uuidset.h"

struct json;
struct jsplit;
struct reconnect;
struct stream;

struct rdb_table {
    const struct rdb_table_class *class;
    struct rdb *db;
    struct hmap rows;               /* Live and placeholder rows, by
                                     * UUID. */
    size_t n_live;

    /* Rows tracked since the last rdb_track_clear(), in the order they
     * first changed (a row's 'track_pos' is its place); NULL where a row
     * was freed since. */
    struct rdb_tracked *tracked;
    size_t n_tracked, allocated_tracked;

    /* Row numbers (rdb_row_index()): 'n_indexes' were ever handed out,
     * and those of freed rows wait in 'free_indexes' for new rows. */
    uint32_t n_indexes;
    uint32_t *free_indexes;
    size_t n_free_indexes, allocated_free_indexes;

    size_t next_col;                /* Where to look for the next column
                                     * name first. */
    size_t name_lens[64];           /* Of the columns' names. */
    bool on_server;                 /* The server's schema has it. */
    uint64_t server_columns;        /* Columns the server has. */
    bool absence_logged;            /* A write to it, absent from the
                                     * server's schema, was logged... */
    uint64_t absent_logged;         /* ...or to these absent columns. */
    struct hmap set_deltas;         /* "struct rdb_set_delta"s of tracked
                                     * rows, until rdb_track_clear(). */
    struct objpool row_pool;        /* Where its rows come from: a million
                                     * ACL rows are 96 bytes each, not the
                                     * next size class of malloc(). */
};

/* A tracked row, and the columns of it that changed. */
struct rdb_tracked {
    struct rdb_row *row;
    uint64_t updated;
};

/* An array of rows. */
struct rdb_rows {
    struct rdb_row **rows;
    size_t n, allocated;
};

/* What one update did to a modified row's set-of-references column. */
struct rdb_set_delta {
    struct hmap_node node;          /* In its table's 'set_deltas'. */
    const struct rdb_row *row;
    size_t col;
    bool valid;                     /* False once a second update came. */
    struct uuid *added, *removed;   /* Of a set of references... */
    char **added_strings;           /* ...or of strings (copies). */
    char **removed_strings;
    size_t n_added, n_removed;
    size_t allocated_added, allocated_removed;
};

/* A queued chunk of output. */
struct rdb_out {
    struct ovs_list node;
    struct ds data;
    size_t sent;
};

/* Where the connection stands. */
enum rdb_conn_state {
    RDB_C_IDLE,                     /* Not connected. */
    RDB_C_SERVER,                   /* Waiting for the server's _Server
                                     * row of the database. */
    RDB_C_SCHEMA,                   /* Waiting for the schema. */
    RDB_C_MONITOR,                  /* Waiting for the initial contents. */
    RDB_C_SYNCED,                   /* Following updates. */
};

/* What the message being read is, as far as we know yet. */
struct rdb_msg {
    bool have_id;
    struct json *id;
    char *method;
    enum {
        RDB_M_UNKNOWN,
        RDB_M_MONITOR_REPLY,        /* Reply to our monitor request. */
        RDB_M_TXN_REPLY,            /* Reply to our transaction. */
        RDB_M_UPDATE,               /* "update2"/"update3" notification. */
    } kind;
    bool streamed;                  /* Result or params went row by row. */
    struct json *result;            /* Captured members, if any. */
    struct json *error;
    struct json *params;
    bool table_skip;                /* Rows of a table we do not keep. */
    bool since_reply;               /* A reply to "monitor_cond_since". */
    bool since_found;               /* Its "found": the rows that follow
                                     * are what changed, not a copy. */
    bool applying;                  /* Some of its rows were applied. */
    bool have_txn_id;               /* 'txn_id' is the "last-txn-id" of a
                                     * reply or "update3" being read. */
    struct uuid txn_id;
    struct rdb_table *table;        /* Of the rows being read. */
    size_t n_rows;
    char *txn_error;                /* First op error in a txn reply. */
};

struct rdb {
    const struct rdb_class *class;
    struct rdb_table *tables;
    char *remote;                   /* The member of 'remotes' in use. */
    struct svec remotes;            /* Shuffled once, tried in turn. */
    size_t next_remote;
    uint64_t min_index;             /* Highest cluster log index seen: a
                                     * member behind it is stale. */
    long long int round_start;      /* When every member last got a try
                                     * without backoff (leave_member()). */

    unsigned int seqno;
    unsigned int reset_seqno;
    bool changed;                   /* A change that is not quiet since the
                                     * current message began. */
    uint8_t id;                     /* What its rows call it (rdb.c). */
    bool synced, ever_synced;
    bool fresh_copy;                /* From rdb_reset() until synced: a
                                     * fresh copy is not tracked. */
    struct rdb_rows graveyard;      /* Rows of a previous copy, freed on
                                     * the next rdb_track_clear(). */
    struct rdb_rows zombies;        /* Deleted rows something still
                                     * refers to: freed with the db. */
    struct uuidset expected_deletes;    /* See rdb_expect_delete(). */
    /* See rdb_own_write(): an open-addressed set of 64 of the random bits
     * of each UUID (0 marks a free slot), 8 bytes a slot and no allocation
     * a row, since a cold start's transaction names tens of thousands.
     * Another row with the same 64 bits would be taken as the echo. */
    uint64_t *own_writes;
    size_t own_mask;                    /* Slots - 1; 0 if none. */
    size_t n_own_writes;
    /* Within one message (rdb_update_begin() to rdb_update_end()): the
     * tables with a row deleted (by index), and the rows of owned tables
     * someone else changed only in weak references, which are foreign
     * unless a row of a table they refer to was deleted in the message
     * (then the server dropped the references). */
    uint64_t msg_deleted_tables;
    struct rdb_weak_change {
        struct rdb_row *row;
        uint64_t columns;
    } *weak_changes;
    size_t n_weak_changes, allocated_weak_changes;
    struct shash server_schema;     /* Each table of the server's schema:
                                     * a "struct sset" of its columns. */
    bool has_local_tables;
    struct ds scratch;
    bool have_schema;               /* 'on_server' and 'server_columns' of
                                     * the tables say what the server's
                                     * schema has (the last one read: a
                                     * new connection reads it again). */
    char *server_version;           /* That schema's version, or NULL. */

    /* Connection. */
    struct reconnect *reconnect;
    struct stream *stream;
    enum rdb_conn_state state;
    unsigned int conn_seqno;        /* Advances on every connection. */
    struct jsplit *splitter;
    struct rdb_msg msg;
    char *inbuf;
    struct ovs_list out;            /* "struct rdb_out"s. */
    size_t out_bytes;
    bool connecting;
    long long int next_id;
    long long int schema_id, monitor_id, lock_id;
    long long int server_id;        /* The _Server monitor request. */
    long long int snapshot_id;      /* See send_monitor() in rdb-conn.c. */
    bool monitor_pending;           /* Main monitor's reply not in yet. */
    bool monitor_since;             /* The main monitor request is
                                     * "monitor_cond_since". */
    bool since_unsupported;         /* The server refused it: "monitor_cond"
                                     * from now on. */
    bool snapshot_wanted;           /* Tables replicated for their initial
                                     * contents await a full copy's end. */
    struct uuid last_txn_id;        /* Of the last change applied in full
                                     * (all zeros: none, a full copy). */
    bool lock_held_at_close;        /* The lock was ours when the last
                                     * connection closed. */
    unsigned int monitor_seq;       /* Names our monitors: ["rdb", N]. */
    bool lock_requested;

    char *lock_name;
    bool has_lock;

    struct rdb_txn *txn;            /* Committed, not completed. */
};

/* rdb.c. */
struct rdb_table *rdb_table(const struct rdb *,
                            const struct rdb_table_class *);
struct rdb_table *rdb_row_table(const struct rdb_row *);
void rdb_reset(struct rdb *);
void rdb_server_schema_clear(struct rdb *);
void rdb_update_begin(struct rdb *);
void rdb_update_end(struct rdb *);
bool rdb_apply_row_update(struct rdb_table *, const char *uuid_s,
                          const char *text, size_t n, char **errorp);

/* Deletions of rows of tables the server reports only deletions of (see
 * rdb_txn_delete()): the server's report of them is no news.
 * rdb_expect_delete_done() forgets them once the transaction is over. */
void rdb_expect_delete(struct rdb *, const struct rdb_table_class *,
                       const struct uuid *);
void rdb_expect_delete_done(struct rdb *);
/* Rows of "owned" tables that the transaction being written or in flight
 * inserts, updates, mutates or deletes: the server's report of changes to
 * them is the echo of that transaction, and changes to others are
 * someone else's (rdb_row_is_foreign()).  The server sends every update a
 * transaction causes before its reply, so they are forgotten with the
 * expected deletions. */
void rdb_own_write(struct rdb *, const struct rdb_table_class *,
                   const struct uuid *);
bool rdb_table_is_local(const struct rdb_table_class *);

uint64_t rdb_hash_bytes64(const void *, size_t n, uint64_t basis);
struct rdb_hash rdb_hash_atom_string(size_t col, const char *, size_t n);
struct rdb_hash rdb_hash_atom_integer(size_t col, int64_t);
struct rdb_hash rdb_hash_atom_pair(size_t col, const char *k, size_t kn,
                                   const char *v, size_t vn);

/* True if the server is known to lack table 't', or its column 'col'
 * (rdb.h, rdb_server_has_table() and rdb_server_has_column()): until a
 * schema was read, everything counts as present.  Inline: every column a
 * transaction writes asks. */
static inline bool
rdb_table_absent(const struct rdb *db, const struct rdb_table *t)
{
    return db->have_schema && !t->on_server;
}

static inline bool
rdb_column_absent(const struct rdb *db, const struct rdb_table *t, size_t col)
{
    return (db->have_schema
            && (!t->on_server
                || !(t->server_columns & (UINT64_C(1) << col))));
}

/* rdb-conn.c. */
void rdb_conn_set_remotes(struct rdb *, const char *remote);
void rdb_conn_init(struct rdb *);
void rdb_conn_destroy(struct rdb *);
void rdb_conn_run(struct rdb *);
void rdb_conn_wait(struct rdb *);
void rdb_conn_send(struct rdb *, struct ds *);   /* Takes the contents. */
void rdb_conn_flush(struct rdb *);              /* Sends what it can now. */
size_t rdb_conn_backlog(const struct rdb *);
long long int rdb_conn_next_id(struct rdb *);

/* rdb-txn.c. */
long long int rdb_txn_pending_id(const struct rdb *);
bool rdb_txn_wants_output(const struct rdb *);
void rdb_txn_reply(struct rdb *, bool ok, const char *error);
void rdb_txn_disconnected(struct rdb *);
void rdb_txn_fill_output(struct rdb *);

#endif /* lib/rdb-private.h */
