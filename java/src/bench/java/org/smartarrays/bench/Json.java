// Owns the little JSON the benchmarks need: writing result files, and reading the result files of
// `smartarrays bench aggregate --json` (objects, arrays, strings, numbers, booleans, null).
package org.smartarrays.bench;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class Json {
  private Json() {}

  /** The value of a JSON text: Map, List, String, BigDecimal, Boolean or null. */
  static Object parse(String text) {
    Parser parser = new Parser(text);
    Object value = parser.value();
    parser.skipSpace();
    if (parser.at < text.length()) throw parser.error("trailing text");
    return value;
  }

  /** A JSON text for value (Map, List, CharSequence, Number, Boolean or null), indented. */
  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, "");
    return out.append('\n').toString();
  }

  private static void write(StringBuilder out, Object value, String indent) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Map<?, ?> map) {
      // Objects of plain values stay on one line; nested ones get a line per member.
      boolean flat = map.values().stream().noneMatch(v -> v instanceof Map || v instanceof List<?> l && !isFlat(l));
      String inner = indent + "  ";
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.append(first ? "" : ",").append(flat ? (first ? "" : " ") : "\n" + inner);
        string(out, e.getKey().toString());
        out.append(": ");
        write(out, e.getValue(), inner);
        first = false;
      }
      out.append(flat || map.isEmpty() ? "}" : "\n" + indent + "}");
    } else if (value instanceof List<?> list) {
      boolean flat = isFlat(list);
      String inner = indent + "  ";
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        out.append(i == 0 ? "" : ",").append(flat ? (i == 0 ? "" : " ") : "\n" + inner);
        write(out, list.get(i), inner);
      }
      out.append(flat || list.isEmpty() ? "]" : "\n" + indent + "]");
    } else if (value instanceof CharSequence s) {
      string(out, s.toString());
    } else if (value instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) throw new IllegalArgumentException("JSON has no " + d);
      out.append(d);
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else {
      throw new IllegalArgumentException("no JSON form for " + value.getClass());
    }
  }

  private static boolean isFlat(List<?> list) {
    return list.stream().noneMatch(v -> v instanceof Map || v instanceof List);
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static final class Parser {
    private final String text;
    private int at;

    Parser(String text) {
      this.text = text;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("JSON: " + what + " at offset " + at);
    }

    void skipSpace() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    }

    boolean take(char c) {
      skipSpace();
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    void expect(char c) {
      if (!take(c)) throw error("expected '" + c + "'");
    }

    Object value() {
      skipSpace();
      if (at >= text.length()) throw error("unexpected end");
      char c = text.charAt(at);
      if (c == '{') return object();
      if (c == '[') return array();
      if (c == '"') return string();
      if (text.startsWith("true", at)) return literal("true", Boolean.TRUE);
      if (text.startsWith("false", at)) return literal("false", Boolean.FALSE);
      if (text.startsWith("null", at)) return literal("null", null);
      int start = at;
      while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
      if (start == at) throw error("unexpected '" + c + "'");
      return new BigDecimal(text.substring(start, at));
    }

    private Object literal(String word, Object value) {
      at += word.length();
      return value;
    }

    private Map<String, Object> object() {
      expect('{');
      Map<String, Object> map = new LinkedHashMap<>();
      if (take('}')) return map;
      do {
        skipSpace();
        String key = string();
        expect(':');
        map.put(key, value());
      } while (take(','));
      expect('}');
      return map;
    }

    private List<Object> array() {
      expect('[');
      List<Object> list = new ArrayList<>();
      if (take(']')) return list;
      do {
        list.add(value());
      } while (take(','));
      expect(']');
      return list;
    }

    private String string() {
      if (at >= text.length() || text.charAt(at) != '"') throw error("expected a string");
      StringBuilder s = new StringBuilder();
      at++;
      while (true) {
        if (at >= text.length()) throw error("unterminated string");
        char c = text.charAt(at++);
        if (c == '"') return s.toString();
        if (c != '\\') {
          s.append(c);
          continue;
        }
        char e = text.charAt(at++);
        switch (e) {
          case 'n' -> s.append('\n');
          case 't' -> s.append('\t');
          case 'r' -> s.append('\r');
          case 'b' -> s.append('\b');
          case 'f' -> s.append('\f');
          case 'u' -> {
            s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> s.append(e);
        }
      }
    }
  }
}
