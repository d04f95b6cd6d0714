/* Owns the C ABI of smartarrays (docs/c-api.md): the one surface that C, the Java and Python
   bindings and other languages use. C11 and C++ compatible; no exception crosses it.

   Conventions (details in docs/c-api.md):
   - Functions returning sa_status return SA_OK (0) on success; on failure they leave their outputs
     untouched and sa_last_error() explains. Value-returning accessors given NULL return 0 and
     record the reason in sa_last_error().
   - Pointer arguments must not be NULL unless their comment says so.
   - An sa_array belongs to the caller from creation until sa_array_free(). Reads may run
     concurrently from any threads; sa_array_set() must not run concurrently with any other call
     on the same array. */
#ifndef SMARTARRAYS_H
#define SMARTARRAYS_H

#include <stdint.h>

#include "smartarrays/export.hpp"

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a call: SA_OK or one of the codes below (the values of smartarrays::ErrorCode). */
typedef int32_t sa_status;

#define SA_OK 0           /**< success */
#define SA_EINVAL 1       /**< bad argument: NULL pointer, option, bit width, node, or a value too wide */
#define SA_ERANGE 2       /**< index, range, chunk or replica past the end */
#define SA_ENOMEM 3       /**< memory refused by the kernel, or a size that cannot be represented */
#define SA_EOS 4          /**< a system call failed for another reason (e.g. mbind refused) */
#define SA_EUNSUPPORTED 5 /**< valid request this build or machine cannot serve */
#define SA_ECANCELLED 6   /**< a parallel loop was cancelled, or the caller's interrupt check stopped a long call */
#define SA_EINTERNAL 7    /**< a bug in the library: an invariant did not hold */

/** The library version, "MAJOR.MINOR.PATCH"; a static string. */
SMARTARRAYS_API const char *sa_version(void);
/** The message of this thread's last failed call ("" if none); valid until this thread's next failure. */
SMARTARRAYS_API const char *sa_last_error(void);

/** An opaque smart array; create with sa_array_from_u64/u32 or sa_array_alloc, release with sa_array_free. */
typedef struct sa_array sa_array;

/** Where an array's pages live (docs/topology-and-placement.md#array-placements). */
typedef enum {
  SA_OS_DEFAULT = 0,  /**< pages land where first touched (pre-faulted by the allocating thread) */
  SA_SINGLE_NODE = 1, /**< every page on sa_options.node */
  SA_INTERLEAVED = 2, /**< pages round-robin over the node set */
  SA_REPLICATED = 3,  /**< one copy per node of the set; reads go to the calling thread's copy */
  SA_PARTITIONED = 4, /**< contiguous stripes, stripe k on the k-th node of the set */
  SA_AUTO = 5         /**< chosen by the adaptive layer from the machine profile and hints (arrays from values only) */
} sa_placement;

/** sa_options.bits: the adaptive layer chooses the width (the fewest bits, or 64 uncompressed). */
#define SA_BITS_AUTO UINT32_C(0xFFFFFFFF)

/** How an array's pages ask for huge pages (sa_options.huge_pages; docs/topology-and-placement.md). */
typedef enum {
  SA_HUGE_PAGES_OFF = 0,  /**< base pages only (MADV_NOHUGEPAGE) */
  SA_HUGE_PAGES_ON = 1,   /**< transparent huge pages (MADV_HUGEPAGE, size rounded to 2 MiB) */
  SA_HUGE_PAGES_AUTO = 2, /**< the default: transparent huge pages for arrays of 4 MiB and up, as numpy */
  SA_HUGE_PAGES_2M = 3,   /**< 2 MiB pages from the kernel's hugetlb pool (SA_ENOMEM when it is short) */
  SA_HUGE_PAGES_1G = 4    /**< 1 GiB pages from the kernel's hugetlb pool (SA_ENOMEM when it is short) */
} sa_huge_pages;

/** How sa_array_set reaches the replicas of a replicated array (sa_options.write_mode; docs/topology-and-placement.md). */
typedef enum {
  SA_WRITE_THROUGH = 0, /**< the default: every set writes every replica */
  SA_WRITE_PRIMARY = 1  /**< set writes replica 0 and marks its group dirty; sa_array_sync copies dirty groups out */
} sa_write_mode;

/** How an array will be read (access hints, read by SA_AUTO and SA_BITS_AUTO only). */
typedef enum {
  SA_SEQUENTIAL = 0, /**< scans in index order */
  SA_RANDOM = 1,     /**< reads at unpredictable indices */
  SA_INDEXED = 2     /**< read through a parallel loop's index */
} sa_access_pattern;

/** What the program promises about its accesses (docs/adaptivity.md). */
typedef struct {
  int32_t read_only;         /**< nonzero: never written after it is built (replicas allowed) */
  sa_access_pattern pattern; /**< how it is read */
  double passes;             /**< expected reads per element over its life, > 0 (default 1) */
  uint32_t threads;          /**< threads that read it; 0 = the default pool's */
} sa_hints;

/** How to allocate an array; fill with sa_options_init() first, so fields added later get defaults. */
typedef struct {
  sa_placement placement; /**< where the pages go */
  int32_t node;           /**< the node of SA_SINGLE_NODE (ignored otherwise) */
  uint32_t bits;          /**< 1..64, 0 = the minimum that holds the data */
  int32_t huge_pages;     /**< an sa_huge_pages mode (default SA_HUGE_PAGES_AUTO) */
  const int32_t *nodes;   /**< node set of interleaved/replicated/partitioned (NULL with node_count 0 = all nodes with memory) */
  uint32_t node_count;    /**< number of entries in nodes; must be 0 for os_default and single_node */
  sa_hints hints;         /**< access hints (defaults: not read-only, sequential, 1 pass, 0 threads) */
  int32_t write_mode;     /**< an sa_write_mode (default SA_WRITE_THROUGH) */
} sa_options;

/** Defaults: SA_OS_DEFAULT, node 0, bits 0, SA_HUGE_PAGES_AUTO, all nodes, default hints, SA_WRITE_THROUGH. */
SMARTARRAYS_API void sa_options_init(sa_options *o);

/** Makes *out hold values[0..n) (values may be NULL when n is 0; o may be NULL for defaults). */
SMARTARRAYS_API sa_status sa_array_from_u64(const uint64_t *values, uint64_t n, const sa_options *o, sa_array **out);
/** Like sa_array_from_u64 from 32-bit values (e.g. a Java int[] read as unsigned). */
SMARTARRAYS_API sa_status sa_array_from_u32(const uint32_t *values, uint64_t n, const sa_options *o, sa_array **out);
/** Makes *out a zero-filled array of n values; o->bits must be 1..64. */
SMARTARRAYS_API sa_status sa_array_alloc(uint64_t n, const sa_options *o, sa_array **out);
/** Frees an array and all its replicas; NULL is fine. */
SMARTARRAYS_API void sa_array_free(sa_array *a);

/** Number of values. */
SMARTARRAYS_API uint64_t sa_array_length(const sa_array *a);
/** Bits per value (1..64). */
SMARTARRAYS_API uint32_t sa_array_bits(const sa_array *a);
/** The array's placement. */
SMARTARRAYS_API sa_placement sa_array_placement(const sa_array *a);
/** Number of replicas (nodes of the set for SA_REPLICATED, else 1). */
SMARTARRAYS_API uint32_t sa_array_replicas(const sa_array *a);
/** The array's sa_huge_pages mode (given, or chosen by SA_AUTO: SA_HUGE_PAGES_ON or _OFF). */
SMARTARRAYS_API int32_t sa_array_huge_pages(const sa_array *a);
/** *bytes = bytes of the replica the kernel backs with huge pages now (transparent or hugetlb). */
SMARTARRAYS_API sa_status sa_array_huge_page_bytes(const sa_array *a, uint32_t replica, uint64_t *bytes);
/** *crc = CRC32C (Castagnoli) of the replica's packed words (the sa_array_words stream), computed in
    parallel by the replica's node's workers. */
SMARTARRAYS_API sa_status sa_array_crc32c(const sa_array *a, uint32_t replica, uint32_t *crc);
/** *equal = 1 when every replica holds the same packed words as replica 0, else 0 (in parallel). */
SMARTARRAYS_API sa_status sa_array_replicas_equal(const sa_array *a, int32_t *equal);
/* Bulk operations, in parallel with every replica written by its own node's workers (docs/c-api.md). */
/** Makes dst hold src's values (any widths and placements; equal lengths, else SA_EINVAL; SA_EINVAL
    naming src's first value too wide for dst, which is then partly overwritten). */
SMARTARRAYS_API sa_status sa_array_copy_from(sa_array *dst, const sa_array *src);
/** Sets every value to value (SA_EINVAL when it does not fit in the array's bits; nothing written). */
SMARTARRAYS_API sa_status sa_array_fill(sa_array *a, uint64_t value);
/** The array's sa_write_mode. */
SMARTARRAYS_API int32_t sa_array_write_mode(const sa_array *a);
/** Copies the groups sets dirtied since the last sync from replica 0 to the other replicas (SA_WRITE_PRIMARY;
    SA_OK doing nothing otherwise). sa_array_get on other replicas may run meanwhile (docs/topology-and-placement.md). */
SMARTARRAYS_API sa_status sa_array_sync(sa_array *a);
/** The adaptive decision that chose the array's options (SA_AUTO / SA_BITS_AUTO) as JSON: choice,
    candidates with predicted_s, explanation (docs/adaptivity.md); "null" when nothing was auto. Valid
    while the array lives. */
SMARTARRAYS_API sa_status sa_array_decision_json(const sa_array *a, const char **json);
/** Bytes mapped by all replicas. */
SMARTARRAYS_API uint64_t sa_array_memory_bytes(const sa_array *a);
/** The replica that serves the calling thread (its node's, else the nearest). */
SMARTARRAYS_API uint32_t sa_array_local_replica(const sa_array *a);

/** *out = value i (checked). */
SMARTARRAYS_API sa_status sa_array_get(const sa_array *a, uint64_t i, uint64_t *out);
/** Stores v as value i in every replica, or in replica 0 under SA_WRITE_PRIMARY (checked index, v must fit in the array's bits). */
SMARTARRAYS_API sa_status sa_array_set(sa_array *a, uint64_t i, uint64_t v);
/** Decodes values [start, start + n) into out[0..n) (out may be NULL when n is 0). */
SMARTARRAYS_API sa_status sa_array_decode(const sa_array *a, uint64_t start, uint64_t n, uint64_t *out);
/** Decodes the 64 values of chunk c (values [64c, 64c + 64), zeros past the end) into out[0..64). */
SMARTARRAYS_API sa_status sa_array_unpack_chunk(const sa_array *a, uint64_t chunk, uint64_t *out);
/** *out = wrapping uint64 sum of every value. */
SMARTARRAYS_API sa_status sa_array_sum(const sa_array *a, uint64_t *out);
/** *out = wrapping uint64 sum of values [start, start + n). */
SMARTARRAYS_API sa_status sa_array_sum_range(const sa_array *a, uint64_t start, uint64_t n, uint64_t *out);
/** The packed words of a replica (layout of docs/bit-layout.md), zero copy: valid until sa_array_free, read only. */
SMARTARRAYS_API sa_status sa_array_words(const sa_array *a, uint32_t replica, const uint64_t **words, uint64_t *nwords);
/** counts[k] = pages of the replica on kernel node k, for k < max_nodes; SA_ERANGE if a page sits on a node >= max_nodes. */
SMARTARRAYS_API sa_status sa_array_pages_per_node(const sa_array *a, uint32_t replica, uint64_t *counts, uint32_t max_nodes);

/* ---- Placed buffers ------------------------------------------------------------------------------
   (array layer; implemented in src/capi/buffer.cpp) Plain memory placed like an array (Shoal's
   shl__malloc) for data the caller reads and writes itself, e.g. the scores of a caller-driven
   PageRank (sa_graph_pagerank_step): page aligned, zero-filled, pre-faulted, with huge pages. */

/** A placed buffer; create with sa_buffer_alloc, release with sa_buffer_free. */
typedef struct sa_buffer sa_buffer;

/** *out = bytes (> 0) of memory placed as o says (NULL: os_default, huge pages auto): os_default,
    single_node, interleaved or partitioned (stripes per node); SA_EINVAL for replicated (a buffer
    has one copy); bits, hints and write_mode do not apply. */
SMARTARRAYS_API sa_status sa_buffer_alloc(uint64_t bytes, const sa_options *o, sa_buffer **out);
/** The buffer's memory (page aligned, writable, valid until sa_buffer_free); NULL for NULL. */
SMARTARRAYS_API void *sa_buffer_data(const sa_buffer *b);
/** The buffer's size in bytes as asked; 0 for NULL. */
SMARTARRAYS_API uint64_t sa_buffer_bytes(const sa_buffer *b);
/** *bytes = bytes of the buffer the kernel backs with huge pages now. */
SMARTARRAYS_API sa_status sa_buffer_huge_page_bytes(const sa_buffer *b, uint64_t *bytes);
/** counts[k] = pages of the buffer on kernel node k, for k < max_nodes; SA_ERANGE if a page sits on a node >= max_nodes. */
SMARTARRAYS_API sa_status sa_buffer_pages_per_node(const sa_buffer *b, uint64_t *counts, uint32_t max_nodes);
/** Frees a buffer; NULL is fine. */
SMARTARRAYS_API void sa_buffer_free(sa_buffer *b);

/** The paper's aggregation (section 5.1): *sum = the wrapping uint64 sum over i of a1[i] + a2[i], run by
    the C++ runtime on the default pool (a partitioned a1's stripes on their nodes first). SA_EINVAL
    when the lengths differ. */
SMARTARRAYS_API sa_status sa_array_aggregate(const sa_array *a1, const sa_array *a2, uint64_t *sum);

/* Live arrays (docs/c-api.md, "Live re-layout"): a shared, versioned array that can change placement
   and bit width while other threads read it. Readers pin a snapshot (a read-only sa_array that stays
   valid and unchanged until sa_array_free, whatever relayouts happen meanwhile); a version's memory
   is freed when its last snapshot is freed. Every sa_live call is thread-safe. */
/** An opaque live array; create with sa_live_create, release with sa_live_free. */
typedef struct sa_live sa_live;
/** Makes a live array of *a as version 0, taking the array over: on success *a is freed and set to
    NULL. SA_EINVAL for a read-only array (a store's or a snapshot), which stays the caller's. */
SMARTARRAYS_API sa_status sa_live_create(sa_array **a, sa_live **out);
/** Frees the live array (NULL is fine); snapshots pinned from it stay valid until freed. */
SMARTARRAYS_API void sa_live_free(sa_live *l);
/** *snapshot = the current version, read-only (sa_array_set refuses it); release with sa_array_free. */
SMARTARRAYS_API sa_status sa_live_pin(const sa_live *l, sa_array **snapshot);
/** Re-lays the array out with o (placement, nodes, huge pages, bits; bits 0 = the fewest that hold
    the values) on the default pool while readers go on, then switches to it atomically; *version
    (may be NULL) = the new version's number. SA_EINVAL for a value too wide or bad options; the
    current version is then unchanged. */
SMARTARRAYS_API sa_status sa_live_relayout(sa_live *l, const sa_options *o, uint64_t *version);
/** The current version's number: 0, one more per relayout (0 for NULL). */
SMARTARRAYS_API uint64_t sa_live_version(const sa_live *l);
/** Number of values (0 for NULL). */
SMARTARRAYS_API uint64_t sa_live_length(const sa_live *l);

/** The fewest bits (1..64) that hold max. */
SMARTARRAYS_API uint32_t sa_min_bits(uint64_t max);

/** Number of logical NUMA nodes (fake ones when a fake topology is active). */
SMARTARRAYS_API uint32_t sa_topology_nodes(void);
/** Writes up to max usable CPUs of node to cpus (NULL allowed when max is 0) and their total number to *count. */
SMARTARRAYS_API sa_status sa_topology_node_cpus(int32_t node, int32_t *cpus, uint32_t max, uint32_t *count);
/** *total_bytes and *free_bytes = the node's memory (free as read with the topology). */
SMARTARRAYS_API sa_status sa_topology_node_memory(int32_t node, uint64_t *total_bytes, uint64_t *free_bytes);
/** SLIT distance between nodes a and b (10 = local); 0 for a bad node. */
SMARTARRAYS_API uint32_t sa_topology_distance(int32_t a, int32_t b);
/** 1 when a fake topology is active, else 0. */
SMARTARRAYS_API int32_t sa_topology_is_fake(void);
/** Activates a fake topology ("nodes=N" or "cpus=0-1;2-3"); "" restores the real one. Call while no other thread uses the library. */
SMARTARRAYS_API sa_status sa_topology_set_fake(const char *spec);
/** The machine facts results depend on (CPU, nodes, memory, huge-page and NUMA-balancing settings, load
    average, kernel, the codec's instruction set, the library version) as one JSON object of schema
    smartarrays.machine/1 (docs/cli.md), read now; *json is valid until this thread's next call. */
SMARTARRAYS_API sa_status sa_machine_facts_json(const char **json);
/** The calling thread's logical node. */
SMARTARRAYS_API int32_t sa_current_node(void);
/** Pins the calling thread to the CPUs of a logical node. */
SMARTARRAYS_API sa_status sa_pin_thread_to_node(int32_t node);

/* ---- Parallel runtime: loops driven by external threads ---------------------------------------
   (runtime layer) A loop hands out the indices [begin, end) exactly once, in batches, to any
   number of threads calling sa_loop_next concurrently -- for instance a Java binding's worker
   threads, as Callisto-RTS's Java workers did. The range is split into one part per NUMA node (in proportion
   to the node's usable CPUs); a thread names its node and gets batches of that node's part
   first, then steals from the other nodes' parts, nearest first. Batch boundaries fall on
   multiples of 64 indices, so a batch never splits a 64-value chunk of a bit-compressed array. */

/** An external-thread loop (opaque). */
typedef struct sa_loop sa_loop;
/** Worker threads of the library's default pool: SMARTARRAYS_THREADS, else every usable CPU; 0 on error. */
SMARTARRAYS_API uint32_t sa_runtime_threads(void);
/** Creates a loop over [begin, end) (begin <= end); batch = indices per batch, 0 = chosen by the library. */
SMARTARRAYS_API sa_status sa_loop_create(uint64_t begin, uint64_t end, uint64_t batch, sa_loop **out);
/** Takes the next batch for a thread on node (-1 = the calling thread's node) into [*lo, *hi): SA_OK with
    *lo < *hi for a batch, SA_OK with *lo == *hi once the range is exhausted, SA_ECANCELLED after sa_loop_cancel. */
SMARTARRAYS_API sa_status sa_loop_next(sa_loop *loop, int32_t node, uint64_t *lo, uint64_t *hi);
/** Stops the loop: batches already taken may finish, later sa_loop_next calls return SA_ECANCELLED. Thread-safe. */
SMARTARRAYS_API sa_status sa_loop_cancel(sa_loop *loop);
/** Frees a loop (NULL is fine); no thread may still be using it. */
SMARTARRAYS_API void sa_loop_free(sa_loop *loop);

/* ---- Graphs ------------------------------------------------------------------------------------
   (graph and algo layers) A directed graph in CSR form as a
   bundle of smart arrays (docs/graph.md): read from an edge list, Matrix Market or GAP .sg file,
   generated, or built from edge arrays, each array with its own placement and bit width; its
   memory report, degree centrality and PageRank. An sa_graph belongs to the caller from creation
   until sa_graph_free. No call changes a graph, so any number of threads may use one at once. */

/** An opaque graph; create with sa_graph_load, sa_graph_generate_* or sa_graph_from_edges, release with sa_graph_free. */
typedef struct sa_graph sa_graph;

/** The bit widths of the smart-arrays paper's variants (§5.2). */
typedef enum {
  SA_GRAPH_U = 0, /**< 64-bit offsets, 32-bit vertex ids (out-degrees are offset differences, never stored) */
  SA_GRAPH_V = 1, /**< offsets in their minimum bits, 32-bit vertex ids */
  SA_GRAPH_VE = 2 /**< offsets and vertex ids in their minimum bits ("V+E") */
} sa_graph_variant;

/** How a graph is built; fill with sa_graph_options_init() first, so fields added later get defaults. */
typedef struct {
  sa_graph_variant variant; /**< the arrays' bit widths */
  int32_t dedup;            /**< nonzero: keep one copy of repeated edges */
  int32_t drop_self_loops;  /**< nonzero: drop edges v -> v */
  int32_t undirected;       /**< nonzero: each edge stands for both directions (not for .sg files, which say it) */
  sa_options arrays;        /**< placement of every array (its bits must be 0: the variant and `bits` choose widths) */
  const char *placement;    /**< NULL, or placements by name: "PLACEMENT,ARRAY=PLACEMENT,..." (docs/c-api.md) */
  const char *bits;         /**< NULL, or widths by name replacing the variant's: "ARRAY=BITS,..." */
} sa_graph_options;

/** Defaults: SA_GRAPH_VE, edges taken as they are (directed, duplicates and self-loops kept), arrays as
    sa_options_init, no overrides. */
SMARTARRAYS_API void sa_graph_options_init(sa_graph_options *o);

/** Reads the graph file path in format ("el", "mtx", "sg" or "compact"; NULL = from the extension) into *out
    (o may be NULL); a compact file's graph is rebuilt in o's layout (sa_store_graph uses it in place). */
SMARTARRAYS_API sa_status sa_graph_load(const char *path, const char *format, const sa_graph_options *o, sa_graph **out);
/** An R-MAT graph (Graph500 parameters) of 2^scale vertices (1..40) and edge_factor (>= 1) * 2^scale edges. */
SMARTARRAYS_API sa_status sa_graph_generate_rmat(uint32_t scale, uint64_t edge_factor, uint64_t seed,
                                                 const sa_graph_options *o, sa_graph **out);
/** A uniform random graph of vertices (>= 1) and round(vertices * average_degree) edges. */
SMARTARRAYS_API sa_status sa_graph_generate_uniform(uint64_t vertices, double average_degree, uint64_t seed,
                                                    const sa_graph_options *o, sa_graph **out);
/** The graph of the m edges src[i] -> dst[i] over vertices vertices (0 = the largest id + 1); src and dst may
    be NULL when m is 0. */
SMARTARRAYS_API sa_status sa_graph_from_edges(const uint64_t *src, const uint64_t *dst, uint64_t m, uint64_t vertices,
                                              const sa_graph_options *o, sa_graph **out);
/** Writes the graph to path in format ("el", "mtx", "sg" or "compact"; NULL = from the extension). */
SMARTARRAYS_API sa_status sa_graph_save(const sa_graph *g, const char *path, const char *format);
/** Frees a graph and all its arrays; NULL is fine. */
SMARTARRAYS_API void sa_graph_free(sa_graph *g);

/** Number of vertices n. */
SMARTARRAYS_API uint64_t sa_graph_vertices(const sa_graph *g);
/** Number of stored (directed) edges m: an undirected edge counts twice, a self-loop once. */
SMARTARRAYS_API uint64_t sa_graph_edges(const sa_graph *g);
/** 1 for a directed graph, 0 for an undirected one (each edge stored both ways), -1 for a bad argument. */
SMARTARRAYS_API int32_t sa_graph_directed(const sa_graph *g);

/** One array's line of sa_graph_memory. */
typedef struct {
  const char *name;       /**< "begin", "edge", "rbegin" or "redge" (a static string; out-degrees are begin's differences, no array) */
  uint64_t length;        /**< values */
  uint64_t bytes;         /**< bytes mapped over all replicas */
  uint32_t bits;          /**< bits per value */
  sa_placement placement; /**< where its pages are */
  uint32_t replicas;      /**< copies */
} sa_graph_array_memory;

/** Writes up to max lines (one per array, in the order of `name` above) to arrays (NULL allowed when max is 0),
    their total number to *count and the sum of their bytes to *total_bytes. */
SMARTARRAYS_API sa_status sa_graph_memory(const sa_graph *g, sa_graph_array_memory *arrays, uint32_t max,
                                          uint32_t *count, uint64_t *total_bytes);

/** degrees[v] = out-degree + in-degree of vertex v; n must be sa_graph_vertices(g) (degrees may be NULL when 0). */
SMARTARRAYS_API sa_status sa_graph_degree_centrality(const sa_graph *g, uint64_t *degrees, uint64_t n);
/** degrees[v] = out-degree of vertex v, begin[v+1] - begin[v] (derived: no array holds them); n must be
    sa_graph_vertices(g) (degrees may be NULL when 0). */
SMARTARRAYS_API sa_status sa_graph_out_degrees(const sa_graph *g, uint64_t *degrees, uint64_t n);

/** What happens to the rank of vertices without out-edges. */
typedef enum {
  SA_DANGLING_NONE = 0,   /**< it leaves the system, so ranks sum to less than 1 (the paper, GAP's pr_spmv) */
  SA_DANGLING_UNIFORM = 1 /**< it is spread over every vertex, so ranks sum to 1 (networkx) */
} sa_dangling_rule;

/** Precision of PageRank's rank and contribution arrays. */
typedef enum {
  SA_SCORES_F64 = 0, /**< doubles (exact against the references) */
  SA_SCORES_F32 = 1  /**< floats: half the bytes in the random gather, as GAP's reference */
} sa_score_precision;

/** PageRank parameters; fill with sa_pagerank_options_init() first. */
typedef struct {
  double damping;            /**< d in rank = (1 - d) / n + d * (incoming contributions), 0..1 */
  double tolerance;          /**< stop once the sum of |rank - previous rank| is below this */
  uint32_t max_iterations;   /**< stop after this many iterations even if not converged */
  sa_dangling_rule dangling; /**< see sa_dangling_rule */
  sa_score_precision scores; /**< precision of ranks and contributions (ranks come back as doubles either way) */
  uint32_t reserved;         /**< 0 */
} sa_pagerank_options;

/** Defaults: damping 0.85, tolerance 1e-3, 100 iterations, SA_DANGLING_NONE, SA_SCORES_F64. */
SMARTARRAYS_API void sa_pagerank_options_init(sa_pagerank_options *o);

/** How a PageRank run ended. */
typedef struct {
  uint32_t iterations; /**< iterations run */
  int32_t converged;   /**< 1 when the last difference was below the tolerance, else 0 */
  double difference;   /**< sum of |rank - previous rank| of the last iteration */
  double seconds;      /**< wall time of the iterations (edge loops and contributions), without setup and copying out */
} sa_pagerank_result;

/** PageRank of every vertex (pull over the reverse edges, Jacobi from 1/n) into ranks[0..n); n must be
    sa_graph_vertices(g) (ranks may be NULL when 0); o may be NULL for the defaults, result may be NULL. */
SMARTARRAYS_API sa_status sa_graph_pagerank(const sa_graph *g, const sa_pagerank_options *o, double *ranks, uint64_t n,
                                            sa_pagerank_result *result);

/* ---- Distributed PageRank: vertex-range parts --------------------------------------------------
   (graph and algo layers; implemented in src/capi/graph.cpp) A part is vertices [first, first + count)
   of a graph's reverse CSR (in-offsets from 0, whole-graph in-neighbour ids, out-offsets from 0), what one
   worker of a distributed PageRank holds (docs/dask.md). Driving every part of a graph with the
   contributions exchanged between iterations gives sa_graph_pagerank's ranks (f64). An sa_pull_part
   belongs to the caller until sa_pull_part_free; no call changes one. */

/** An opaque part; create with sa_graph_pull_part or sa_sg_pull_part, release with sa_pull_part_free. */
typedef struct sa_pull_part sa_pull_part;

/** Vertices [first, first + count) of g, in g's widths; SA_EINVAL when the range is outside 0..n. */
SMARTARRAYS_API sa_status sa_graph_pull_part(const sa_graph *g, uint64_t first, uint64_t count, sa_pull_part **out);
/** The same part read from the GAP .sg file path, only its byte ranges, every offset and id checked. */
SMARTARRAYS_API sa_status sa_sg_pull_part(const char *path, uint64_t first, uint64_t count, sa_pull_part **out);
/** The vertex count n of the .sg file path, from its header (its size checked against it). */
SMARTARRAYS_API sa_status sa_sg_vertices(const char *path, uint64_t *vertices);
/** Frees a part; NULL is fine. */
SMARTARRAYS_API void sa_pull_part_free(sa_pull_part *p);
/** The part's first vertex (0 for a bad argument). */
SMARTARRAYS_API uint64_t sa_pull_part_first(const sa_pull_part *p);
/** The part's vertex count (0 for a bad argument). */
SMARTARRAYS_API uint64_t sa_pull_part_count(const sa_pull_part *p);
/** The whole graph's vertex count n (0 for a bad argument). */
SMARTARRAYS_API uint64_t sa_pull_part_vertices(const sa_pull_part *p);
/** Start of a run: ranks[k] = 1/n and contributions[k] = rank / out-degree (0 for dangling vertices) for
    the part's count vertices; *dangling_vertices = how many have no out-edge. The run's first dangling
    rank is the sum over parts of dangling_vertices times 1/n. */
SMARTARRAYS_API sa_status sa_pull_part_start(const sa_pull_part *p, double *ranks, double *contributions,
                                             uint64_t count, uint64_t *dangling_vertices);
/** One pull iteration of the part (o: damping and dangling rule; NULL = defaults; scores must be f64):
    from every vertex's contributions[0..n) and the part's previous ranks[0..count), writes the new ranks
    and contributions; *difference = sum of |new - previous| over the part, *new_dangling = the new ranks
    of its dangling vertices summed (SA_DANGLING_UNIFORM; else 0). dangling is the sum of every part's
    new_dangling from the previous iteration. new_ranks may be ranks itself (updated in place); when the
    part is the whole graph, new_contributions may be contributions itself (rewritten in a second pass
    once every pull is done, as sa_graph_pagerank does: no second buffer and its memory traffic); every
    other pair of buffers must not overlap (SA_EINVAL). */
SMARTARRAYS_API sa_status sa_pull_part_step(const sa_pull_part *p, const sa_pagerank_options *o,
                                            const double *contributions, uint64_t n, const double *ranks,
                                            double dangling, double *new_ranks, double *new_contributions,
                                            uint64_t count, double *difference, double *new_dangling);

/** sa_pull_part_start over the part [0, n) that is g itself, on g's own arrays (nothing copied): the
    start of a PageRank whose iterations the caller runs with sa_graph_pagerank_step (the Java-driven
    PageRank); count must be sa_graph_vertices(g). */
SMARTARRAYS_API sa_status sa_graph_pagerank_start(const sa_graph *g, double *ranks, double *contributions,
                                                  uint64_t count, uint64_t *dangling_vertices);
/** sa_pull_part_step over the part [0, n) that is g itself, on g's own arrays, in parallel on the
    default pool: one iteration of a PageRank whose loop the caller runs; n and count must be
    sa_graph_vertices(g). Iterated from sa_graph_pagerank_start, it gives sa_graph_pagerank's ranks (f64). */
SMARTARRAYS_API sa_status sa_graph_pagerank_step(const sa_graph *g, const sa_pagerank_options *o,
                                                 const double *contributions, uint64_t n, const double *ranks,
                                                 double dangling, double *new_ranks, double *new_contributions,
                                                 uint64_t count, double *difference, double *new_dangling);

/* ---- Stores: the compact form ------------------------------------------------------------------
   (store layer; implemented in src/capi/store.cpp) Files and streams of named arrays and graphs that
   are mapped back or received and used in place, with no parsing (docs/compact-format.md). An
   sa_store belongs to the caller until sa_store_close; the arrays and graphs taken from it are new
   handles (free them as usual) that stay valid after the store is closed, and are read-only. */

/** An open store; create with sa_store_open or sa_store_recv, release with sa_store_close. */
typedef struct sa_store sa_store;

/** How sa_store_open makes the arrays of a file. */
typedef enum {
  SA_STORE_MAP = 0, /**< read-only views over the file's pages: no copy; a graph's offsets and ids read once (bounds) */
  SA_STORE_LOAD = 1 /**< copies (checksums checked) into the given placement, in parallel */
} sa_store_mode;

/** What a named object of a store is. */
typedef enum { SA_STORE_ARRAY = 1, SA_STORE_GRAPH = 2 } sa_store_object_kind;

/** One named object to write or send: exactly one of array and graph is non-NULL. */
typedef struct {
  const char *name;       /**< 1..1024 bytes, no control byte, unique in the store */
  const sa_array *array;  /**< the array, or NULL */
  const sa_graph *graph;  /**< the graph, or NULL */
} sa_store_object;

/** Writes objects[0..n) as a new store at path (replacing any file there once it is complete). */
SMARTARRAYS_API sa_status sa_store_write(const char *path, const sa_store_object *objects, uint64_t n);
/** Adds objects[0..n) to the store at path without rewriting it; names must be new. */
SMARTARRAYS_API sa_status sa_store_append(const char *path, const sa_store_object *objects, uint64_t n);
/** Opens the store at path mapped (placement NULL or the defaults) or loaded into placement (NULL = os_default; bits 0). */
SMARTARRAYS_API sa_status sa_store_open(const char *path, sa_store_mode mode, const sa_options *placement, sa_store **out);
/** Closes a store; arrays and graphs taken from it stay valid. NULL is fine. */
SMARTARRAYS_API void sa_store_close(sa_store *s);
/** Number of named objects (0 for NULL). */
SMARTARRAYS_API uint64_t sa_store_count(const sa_store *s);
/** The name of object i (directory order), NULL when i is out of range; valid until sa_store_close. */
SMARTARRAYS_API const char *sa_store_name(const sa_store *s, uint64_t i);
/** The kind of the object named name into *kind. */
SMARTARRAYS_API sa_status sa_store_kind(const sa_store *s, const char *name, sa_store_object_kind *kind);
/** The array named name as a new read-only handle sharing the store's memory (no copy). */
SMARTARRAYS_API sa_status sa_store_array(const sa_store *s, const char *name, sa_array **out);
/** The graph named name as a new read-only handle sharing the store's memory (no copy). */
SMARTARRAYS_API sa_status sa_store_graph(const sa_store *s, const char *name, sa_graph **out);
/** Checks every block's checksum (deep nonzero: also every graph's CSR) of the store at path; *problems
    gets the number of problems found (0 = sound). A malformed header or directory is an error. */
SMARTARRAYS_API sa_status sa_store_verify(const char *path, int32_t deep, uint64_t *problems);
/** Sends objects[0..n) over fd (socket, pipe, file) as one store stream, blocks straight from memory. */
SMARTARRAYS_API sa_status sa_store_send(int32_t fd, const sa_store_object *objects, uint64_t n);
/** Sends the store file at path over fd as one stream, with sendfile. */
SMARTARRAYS_API sa_status sa_store_send_file(int32_t fd, const char *path);
/** Receives one store stream from fd into one region placed as placement says (NULL = os_default),
    accepting at most max_bytes (0 = the memory limit); every block's checksum is checked. */
SMARTARRAYS_API sa_status sa_store_recv(int32_t fd, const sa_options *placement, uint64_t max_bytes, sa_store **out);

/** Receives store streams one after another, reading each into the region of the last one when no
    array or graph of that store is left and the stream fits (saves a new region's page faults per
    stream); calls from several threads take turns. Create with sa_receiver_new, release with
    sa_receiver_free (stores received stay valid). */
typedef struct sa_receiver sa_receiver;
/** A receiver placing its regions as placement says (NULL = os_default; not replicated), accepting
    streams of at most max_bytes (0 = the memory limit). */
SMARTARRAYS_API sa_status sa_receiver_new(const sa_options *placement, uint64_t max_bytes, sa_receiver **out);
/** Releases r (NULL is a no-op). */
SMARTARRAYS_API void sa_receiver_free(sa_receiver *r);
/** Receives one stream from fd as sa_store_recv does, into r's kept region when it can be reused. */
SMARTARRAYS_API sa_status sa_receiver_recv(sa_receiver *r, int32_t fd, sa_store **out);
/** The bytes of r's kept region (0 before the first stream) and how many streams reused it (either may be NULL). */
SMARTARRAYS_API sa_status sa_receiver_stats(const sa_receiver *r, uint64_t *reserved_bytes, uint64_t *reuses);

/* ---- Smart collections (docs/collections.md) -----------------------------------------------------
   Operators over arrays of integer keys (and values): group-by, hash join, a read-only sorted
   index, and read-only hash maps and sets. Their results are new arrays in the fewest bits, placed as the sa_options say (NULL =
   os_default; bits must be 0). Every call runs in parallel on the default pool. */

/** The aggregate of sa_group_by. */
typedef enum {
  SA_AGG_COUNT = 0,  /**< rows per key */
  SA_AGG_SUM = 1,    /**< wrapping sum of each key's values */
  SA_AGG_MIN = 2,    /**< smallest value per key */
  SA_AGG_MAX = 3,    /**< largest value per key */
  SA_AGG_MEDIAN = 4  /**< exact lower median per key: the value at (c - 1) / 2 of its c sorted values */
} sa_aggregate;

/** Groups values by keys (equal lengths): *out_keys gets the distinct keys ascending, *out_values the
    aggregate of each; both new arrays placed as o says. */
SMARTARRAYS_API sa_status sa_group_by(const sa_array *keys, const sa_array *values, sa_aggregate aggregate,
                                      const sa_options *o, sa_array **out_keys, sa_array **out_values);
/** Counts the pairs (i, j) with left[i] == right[j]: a hash table on the smaller side (placed as o says)
    probed in parallel. */
SMARTARRAYS_API sa_status sa_hash_join_count(const sa_array *left, const sa_array *right, const sa_options *o,
                                             uint64_t *out);
/** The pairs themselves, sorted by left row then right row: *out_left[k] and *out_right[k] are the rows
    of pair k, new arrays placed as o says. */
SMARTARRAYS_API sa_status sa_hash_join_pairs(const sa_array *left, const sa_array *right, const sa_options *o,
                                             sa_array **out_left, sa_array **out_right);

/** A read-only sorted index of keys -> rows; create with sa_index_build, release with sa_index_free.
    Any number of threads may look up in one at once. */
typedef struct sa_index sa_index;
/** Indexes keys[i] -> i (the keys sorted into the fewest bits, a radix directory over them), placed as o says. */
SMARTARRAYS_API sa_status sa_index_build(const sa_array *keys, const sa_options *o, sa_index **out);
/** Releases an index; NULL is fine. */
SMARTARRAYS_API void sa_index_free(sa_index *index);
/** Rows indexed (0 for NULL). */
SMARTARRAYS_API uint64_t sa_index_size(const sa_index *index);
/** Bytes of the index's arrays (0 for NULL). */
SMARTARRAYS_API uint64_t sa_index_memory_bytes(const sa_index *index);
/** For each of probe[0..n): counts[k] rows hold the key, and (when first is not NULL) first[k] is the
    position in sorted order of the first of them (where it would be when counts[k] is 0). */
SMARTARRAYS_API sa_status sa_index_lookup(const sa_index *index, const uint64_t *probe, uint64_t n, uint64_t *counts,
                                          uint64_t *first);
/** The row of the key at sorted position i into *out (positions from sa_index_lookup). */
SMARTARRAYS_API sa_status sa_index_row(const sa_index *index, uint64_t i, uint64_t *out);
/** The sum of the match counts of probe's values (an index nested loop join, counted), in parallel. */
SMARTARRAYS_API sa_status sa_index_count_matches(const sa_index *index, const sa_array *probe, uint64_t *out);

/** A read-only hash map of integer keys -> integer values (open addressing on smart arrays: keys and
    values in the fewest bits); create with sa_hash_map_build, release with sa_hash_map_free. Any
    number of threads may probe one at once. */
typedef struct sa_hash_map sa_hash_map;
/** Maps keys[i] -> values[i] (equal lengths; for a key given more than once its last row's value
    wins), built in parallel, every array placed as o says (replicated: probes read their node's copy). */
SMARTARRAYS_API sa_status sa_hash_map_build(const sa_array *keys, const sa_array *values, const sa_options *o,
                                            sa_hash_map **out);
/** Releases a map; NULL is fine. */
SMARTARRAYS_API void sa_hash_map_free(sa_hash_map *map);
/** Distinct keys (0 for NULL). */
SMARTARRAYS_API uint64_t sa_hash_map_size(const sa_hash_map *map);
/** Bytes of the map's arrays (0 for NULL). */
SMARTARRAYS_API uint64_t sa_hash_map_memory_bytes(const sa_hash_map *map);
/** For each of probe[0..n), in parallel: out[k] = its value, or missing when absent, and (when found
    is not NULL) found[k] = 1 or 0. */
SMARTARRAYS_API sa_status sa_hash_map_get(const sa_hash_map *map, const uint64_t *probe, uint64_t n, uint64_t missing,
                                          uint64_t *out, uint8_t *found);

/** A read-only hash set of integer keys (keys in the fewest bits); create with sa_hash_set_build,
    release with sa_hash_set_free. Any number of threads may probe one at once. */
typedef struct sa_hash_set sa_hash_set;
/** The set of keys' values (duplicates count once), built in parallel, placed as o says. */
SMARTARRAYS_API sa_status sa_hash_set_build(const sa_array *keys, const sa_options *o, sa_hash_set **out);
/** Releases a set; NULL is fine. */
SMARTARRAYS_API void sa_hash_set_free(sa_hash_set *set);
/** Distinct keys (0 for NULL). */
SMARTARRAYS_API uint64_t sa_hash_set_size(const sa_hash_set *set);
/** Bytes of the set's arrays (0 for NULL). */
SMARTARRAYS_API uint64_t sa_hash_set_memory_bytes(const sa_hash_set *set);
/** For each of probe[0..n), in parallel: out[k] = 1 when it is in the set, else 0. */
SMARTARRAYS_API sa_status sa_hash_set_contains(const sa_hash_set *set, const uint64_t *probe, uint64_t n, uint8_t *out);
/** How many of probe's values are in the set (a semi-join, counted), in parallel. */
SMARTARRAYS_API sa_status sa_hash_set_count_contained(const sa_hash_set *set, const sa_array *probe, uint64_t *out);

/* ---- Java binding support ---------------------------------------------------------------------
   What the Java binding (java/) needs beyond the entry
   points above, so that it re-implements no runtime policy in Java. */

/** The logical node of each worker of the default pool (its pinning plan), up to max of them, into nodes
    (NULL allowed when max is 0), and the number of workers into *count. The Java binding starts one Java
    worker per entry, pinned to that node, so Java loops are placed like the native ones. */
SMARTARRAYS_API sa_status sa_runtime_worker_nodes(int32_t *nodes, uint32_t max, uint32_t *count);

/* ---- Interrupting long calls ------------------------------------------------------------------
   (runtime layer; implemented in src/capi/interrupt.cpp) A long call (loading, generating or saving a
   graph, PageRank, building a collection, writing or streaming a store, any parallel loop) polls the
   calling thread's check between blocks and while it waits for workers, about every 20 ms, and stops
   with SA_ECANCELLED ("interrupted") once the check returns non-zero, releasing what it made. */

/** A caller's check: non-zero asks the long call that polls it to stop. It runs on the thread that made
    the call, never on a worker, and must not call into smartarrays (such a call fails with SA_EINVAL). */
typedef int (*sa_interrupt_check)(void *context);

/** Installs check, called with context, for the calling thread's later calls; NULL removes it. One check
    per thread: a new one replaces the old. A C program stops its long calls on Ctrl-C with a check that
    reads the flag its SIGINT handler sets; the Java binding installs one that reports Thread.interrupt(). */
SMARTARRAYS_API sa_status sa_set_interrupt_check(sa_interrupt_check check, void *context);

#ifdef __cplusplus
}
#endif

#endif /* SMARTARRAYS_H */
