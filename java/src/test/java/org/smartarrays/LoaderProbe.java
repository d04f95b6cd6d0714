// A main program for LoaderTest: loads the library in a fresh JVM and prints where it came from.
package org.smartarrays;

final class LoaderProbe {
  private LoaderProbe() {}

  public static void main(String[] args) {
    System.out.println(SmartArrays.version() + " from " + SmartArrays.libraryLocation());
  }
}
