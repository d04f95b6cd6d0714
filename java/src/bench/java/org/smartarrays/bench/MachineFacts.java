// Owns the machine facts a benchmark result depends on (DESIGN.md §6), read the way the command
// reports them in its "machine" object (docs/cli.md), plus the JVM that ran the Java side.
package org.smartarrays.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.smartarrays.ParallelLoop;
import org.smartarrays.SmartArrays;
import org.smartarrays.Topology;

final class MachineFacts {
  private MachineFacts() {}

  private static String read(String path) {
    try {
      return Files.readString(Path.of(path)).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String cpuModel() {
    for (String line : read("/proc/cpuinfo").split("\n")) {
      if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
    }
    return "unknown";
  }

  private static long onlineCpus() {
    return read("/proc/cpuinfo").lines().filter(l -> l.startsWith("processor")).count();
  }

  // The selected mode of a sysfs choice file such as "always [madvise] never".
  private static String selected(String path) {
    String text = read(path);
    int open = text.indexOf('[');
    int close = text.indexOf(']');
    return open >= 0 && close > open ? text.substring(open + 1, close) : text;
  }

  /** The facts now, in the command's "machine" layout; codecIsa comes from the command's own report. */
  static Map<String, Object> now(String codecIsa) {
    TreeSet<Integer> usable = new TreeSet<>();
    for (int node = 0; node < Topology.nodes(); node++) {
      for (int cpu : Topology.nodeCpus(node)) usable.add(cpu);
    }
    List<Object> load = new ArrayList<>();
    String[] loadFields = read("/proc/loadavg").split(" ");
    for (int i = 0; i < 3 && i < loadFields.length; i++) load.add(Double.parseDouble(loadFields[i]));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu_model", cpuModel());
    m.put("online_cpus", onlineCpus());
    m.put("usable_cpus", usable.size());
    m.put("nodes", Topology.nodes());
    m.put("fake_topology", Topology.isFake());
    m.put("codec_isa", codecIsa);
    m.put("thp_enabled", selected("/sys/kernel/mm/transparent_hugepage/enabled"));
    m.put("numa_balancing", read("/proc/sys/kernel/numa_balancing"));
    m.put("load_average", load);
    m.put("kernel", read("/proc/sys/kernel/osrelease"));
    m.put("java_version", System.getProperty("java.version"));
    m.put("java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    m.put("java_workers", ParallelLoop.workers());
    m.put("library_version", SmartArrays.version());
    return m;
  }
}
