/* Owns the C ABI of smartarrays (DESIGN.md §8): the one surface that C, the Java and Python
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
#define SA_ECANCELLED 6   /**< a parallel loop was cancelled */
#define SA_EINTERNAL 7    /**< a bug in the library: an invariant did not hold */

/** The library version, "MAJOR.MINOR.PATCH"; a static string. */
SMARTARRAYS_API const char *sa_version(void);
/** The message of this thread's last failed call ("" if none); valid until this thread's next failure. */
SMARTARRAYS_API const char *sa_last_error(void);

/** An opaque smart array; create with sa_array_from_u64/u32 or sa_array_alloc, release with sa_array_free. */
typedef struct sa_array sa_array;

/** Where an array's pages live (DESIGN.md §4). */
typedef enum {
  SA_OS_DEFAULT = 0,  /**< pages land where first touched (pre-faulted by the allocating thread) */
  SA_SINGLE_NODE = 1, /**< every page on sa_options.node */
  SA_INTERLEAVED = 2, /**< pages round-robin over the node set */
  SA_REPLICATED = 3,  /**< one copy per node of the set; reads go to the calling thread's copy */
  SA_PARTITIONED = 4  /**< contiguous stripes, stripe k on the k-th node of the set */
} sa_placement;

/** How to allocate an array; fill with sa_options_init() first, so fields added later get defaults. */
typedef struct {
  sa_placement placement; /**< where the pages go */
  int32_t node;           /**< the node of SA_SINGLE_NODE (ignored otherwise) */
  uint32_t bits;          /**< 1..64, 0 = the minimum that holds the data */
  int32_t huge_pages;     /**< nonzero: ask for transparent huge pages */
  const int32_t *nodes;   /**< node set of interleaved/replicated/partitioned (NULL with node_count 0 = all nodes with memory) */
  uint32_t node_count;    /**< number of entries in nodes; must be 0 for os_default and single_node */
} sa_options;

/** Defaults: SA_OS_DEFAULT, node 0, bits 0, no huge pages, all nodes. */
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
/** Bytes mapped by all replicas. */
SMARTARRAYS_API uint64_t sa_array_memory_bytes(const sa_array *a);
/** The replica that serves the calling thread (its node's, else the nearest). */
SMARTARRAYS_API uint32_t sa_array_local_replica(const sa_array *a);

/** *out = value i (checked). */
SMARTARRAYS_API sa_status sa_array_get(const sa_array *a, uint64_t i, uint64_t *out);
/** Stores v as value i in every replica (checked index, v must fit in the array's bits). */
SMARTARRAYS_API sa_status sa_array_set(sa_array *a, uint64_t i, uint64_t v);
/** Decodes values [start, start + n) into out[0..n) (out may be NULL when n is 0). */
SMARTARRAYS_API sa_status sa_array_decode(const sa_array *a, uint64_t start, uint64_t n, uint64_t *out);
/** Decodes the 64 values of chunk c (values [64c, 64c + 64), zeros past the end) into out[0..64). */
SMARTARRAYS_API sa_status sa_array_unpack_chunk(const sa_array *a, uint64_t chunk, uint64_t *out);
/** *out = wrapping uint64 sum of every value. */
SMARTARRAYS_API sa_status sa_array_sum(const sa_array *a, uint64_t *out);
/** *out = wrapping uint64 sum of values [start, start + n). */
SMARTARRAYS_API sa_status sa_array_sum_range(const sa_array *a, uint64_t start, uint64_t n, uint64_t *out);
/** The packed words of a replica (layout of DESIGN.md §3), zero copy: valid until sa_array_free, read only. */
SMARTARRAYS_API sa_status sa_array_words(const sa_array *a, uint32_t replica, const uint64_t **words, uint64_t *nwords);
/** counts[k] = pages of the replica on kernel node k, for k < max_nodes; SA_ERANGE if a page sits on a node >= max_nodes. */
SMARTARRAYS_API sa_status sa_array_pages_per_node(const sa_array *a, uint32_t replica, uint64_t *counts, uint32_t max_nodes);

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
   (runtime layer; implemented in src/capi/runtime_capi.cpp)
   A loop hands out the indices [begin, end) exactly once, in batches, to any number of threads
   calling sa_loop_next concurrently -- for instance a Java binding's worker threads, as
   Callisto-RTS's Java workers did. The range is split into one part per NUMA node (in proportion
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

/* ---- Java binding support ---------------------------------------------------------------------
   (implemented in src/capi/java_support.cpp) What the Java binding (java/) needs beyond the entry
   points above, so that it re-implements no runtime policy in Java. */

/** The logical node of each worker of the default pool (its pinning plan), up to max of them, into nodes
    (NULL allowed when max is 0), and the number of workers into *count. The Java binding starts one Java
    worker per entry, pinned to that node, so Java loops are placed like the native ones. */
SMARTARRAYS_API sa_status sa_runtime_worker_nodes(int32_t *nodes, uint32_t max, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* SMARTARRAYS_H */
