// Owns the per-thread CPU accounting of a benchmark's timed region (Linux /proc/self/task/*/schedstat):
// how long the JVM's own threads (compilers, GC, ...) ran while the library's threads worked, and how
// long the library's threads waited for a CPU (the load from other processes), so a Java/C++ ratio
// can be told apart from the JVM's or the machine's interference.
package org.smartarrays.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** One reading of every thread of this process: its name, time on a CPU and time waiting for one (ns). */
final class ThreadTimes {
  private static final Path TASKS = Path.of("/proc/self/task");

  /** A thread's times; library = it carries the main thread's name (the main thread and the native pool's
      workers, which inherit it), else it is one of the JVM's own named threads. */
  private record Times(boolean library, long runNs, long waitNs) {}

  /** What happened between two readings, in ns summed over threads. */
  record Delta(long libraryRunNs, long libraryWaitNs, long jvmRunNs) {}

  private final Map<Long, Times> threads;

  private ThreadTimes(Map<Long, Times> threads) {
    this.threads = threads;
  }

  /** Whether this system can be read (Linux with schedstat). */
  static boolean available() {
    return Files.isReadable(Path.of("/proc/thread-self/schedstat"));
  }

  /** Every thread's times now (nothing where /proc cannot be read). */
  static ThreadTimes now() {
    Map<Long, Times> threads = new HashMap<>();
    if (!available()) return new ThreadTimes(threads);
    try {
      String mainName = Files.readString(Path.of("/proc/self/comm")).strip();
      try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
        for (Path task : tasks) {
          try {
            String name = Files.readString(task.resolve("comm")).strip();
            String[] fields = Files.readString(task.resolve("schedstat")).strip().split(" ");
            threads.put(Long.parseLong(task.getFileName().toString()),
                new Times(name.equals(mainName), Long.parseLong(fields[0]), Long.parseLong(fields[1])));
          } catch (NoSuchFileException ended) {
            // The thread ended while being read: its time no longer counts on either side.
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ThreadTimes(threads);
  }

  /** The times of the threads from this reading to later (threads started meanwhile count from zero). */
  Delta until(ThreadTimes later) {
    long libraryRun = 0;
    long libraryWait = 0;
    long jvmRun = 0;
    for (Map.Entry<Long, Times> e : later.threads.entrySet()) {
      Times before = threads.getOrDefault(e.getKey(), new Times(e.getValue().library(), 0, 0));
      long run = e.getValue().runNs() - before.runNs();
      if (e.getValue().library()) {
        libraryRun += run;
        libraryWait += e.getValue().waitNs() - before.waitNs();
      } else {
        jvmRun += run;
      }
    }
    return new Delta(libraryRun, libraryWait, jvmRun);
  }
}
