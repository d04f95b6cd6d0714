// Owns the Java names of the C ABI's sa_huge_pages modes.
package org.smartarrays;

/** How an array's pages ask for huge pages; the ordinals are the C ABI's sa_huge_pages codes. */
public enum HugePages {
  /** "off": base pages only (MADV_NOHUGEPAGE). */
  OFF("off"),
  /** "on": transparent huge pages (MADV_HUGEPAGE, size rounded to 2 MiB). */
  ON("on"),
  /** "auto", the default: transparent huge pages for arrays of 4 MiB and up, as numpy does. */
  AUTO("auto"),
  /** "2M": 2 MiB pages from the kernel's hugetlb pool (an error when the pool is short). */
  PAGES_2M("2M"),
  /** "1G": 1 GiB pages from the kernel's hugetlb pool (an error when the pool is short). */
  PAGES_1G("1G");

  private final String label;

  HugePages(String label) {
    this.label = label;
  }

  /** The mode's name in every surface: "off", "on", "auto", "2M" or "1G". */
  public String label() {
    return label;
  }

  /** The mode spelled name (any case); IllegalArgumentException listing the names otherwise. */
  public static HugePages parse(String name) {
    for (HugePages mode : values()) {
      if (mode.label.equalsIgnoreCase(name)) return mode;
    }
    throw new IllegalArgumentException("unknown huge_pages mode '" + name + "' (expected one of: off, on, auto, 2M, 1G)");
  }

  /** The sa_huge_pages code. */
  int code() {
    return ordinal();
  }

  static HugePages of(int code) {
    HugePages[] all = values();
    if (code < 0 || code >= all.length) {
      throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "unknown sa_huge_pages " + code);
    }
    return all[code];
  }
}
