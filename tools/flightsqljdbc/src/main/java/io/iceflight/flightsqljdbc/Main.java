package io.iceflight.flightsqljdbc;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Runs JDBC calls against a Flight SQL server through whatever driver serves the URL (the Arrow
 * Flight SQL JDBC driver for {@code jdbc:arrow-flight-sql://}), as DBeaver or DataGrip would, and
 * prints each answer as one line of JSON, for a test to compare with the plain protocol's.
 *
 * <pre>
 * java -cp flightsqljdbc.jar:flight-sql-jdbc-driver.jar io.iceflight.flightsqljdbc.Main URL TASK...
 *   tables SCHEMA_PATTERN        DatabaseMetaData.getTables(null, pattern, "%", null)
 *   columns SCHEMA TABLE         DatabaseMetaData.getColumns(null, schema, table, "%")
 *   query SQL                    Statement.executeQuery
 *   prepared SQL PARAM...        PreparedStatement with each PARAM bound: i:42 (long), d:1.5 (double), s:text
 * </pre>
 *
 * A JDBC user and password come from the ICEFLIGHT_JDBC_USER and ICEFLIGHT_JDBC_PASSWORD
 * environment variables. Exit status 2 means no driver accepted the URL; 1, that a call failed
 * (its message on stderr).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: Main JDBC_URL TASK [ARGS]... (see the class comment)");
      System.exit(64);
    }
    Properties props = new Properties();
    String user = System.getenv("ICEFLIGHT_JDBC_USER");
    if (user != null) {
      props.setProperty("user", user);
      props.setProperty("password", System.getenv().getOrDefault("ICEFLIGHT_JDBC_PASSWORD", ""));
    }
    try {
      DriverManager.getDriver(args[0]);
    } catch (SQLException e) {
      System.err.println("no JDBC driver for " + args[0] + " on the class path: " + e.getMessage());
      System.exit(2);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (Connection conn = DriverManager.getConnection(args[0], props)) {
      List<String> rest = Arrays.asList(args).subList(1, args.length);
      run(conn, rest, out);
    } catch (SQLException e) {
      System.err.println("JDBC call failed: " + e.getMessage());
      System.exit(1);
    }
  }

  /** Runs the one task in words and prints its answer. */
  private static void run(Connection conn, List<String> words, PrintStream out) throws SQLException {
    String task = words.get(0);
    DatabaseMetaData md = conn.getMetaData();
    switch (task) {
      case "tables" -> {
        try (ResultSet rs = md.getTables(null, arg(words, 1), "%", null)) {
          out.println(json(rs, List.of("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE")));
        }
      }
      case "columns" -> {
        try (ResultSet rs = md.getColumns(null, arg(words, 1), arg(words, 2), "%")) {
          out.println(json(rs, List.of("TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION")));
        }
      }
      case "query" -> {
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(arg(words, 1))) {
          out.println(json(rs, null));
        }
      }
      case "prepared" -> {
        try (PreparedStatement ps = conn.prepareStatement(arg(words, 1))) {
          for (int i = 2; i < words.size(); i++) {
            bind(ps, i - 1, words.get(i));
          }
          try (ResultSet rs = ps.executeQuery()) {
            out.println(json(rs, null));
          }
        }
      }
      default -> throw new SQLException("unknown task " + task);
    }
  }

  private static String arg(List<String> words, int i) throws SQLException {
    if (i >= words.size()) {
      throw new SQLException(words.get(0) + ": argument " + i + " missing");
    }
    return words.get(i);
  }

  private static void bind(PreparedStatement ps, int index, String param) throws SQLException {
    String value = param.substring(2);
    switch (param.substring(0, 2)) {
      case "i:" -> ps.setLong(index, Long.parseLong(value));
      case "d:" -> ps.setDouble(index, Double.parseDouble(value));
      case "s:" -> ps.setString(index, value);
      default -> throw new SQLException("parameter " + param + ": want i:, d: or s: before the value");
    }
  }

  /**
   * Writes a result set as {"columns": [...], "rows": [[...], ...]}: the named columns, or all
   * of them when names is null.
   */
  private static String json(ResultSet rs, List<String> names) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    List<String> columns = new ArrayList<>();
    if (names == null) {
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        columns.add(meta.getColumnLabel(i));
      }
    } else {
      columns.addAll(names);
    }
    StringBuilder b = new StringBuilder("{\"columns\":[");
    for (int i = 0; i < columns.size(); i++) {
      b.append(i > 0 ? "," : "");
      string(b, columns.get(i));
    }
    b.append("],\"rows\":[");
    boolean first = true;
    while (rs.next()) {
      b.append(first ? "[" : ",[");
      first = false;
      for (int i = 0; i < columns.size(); i++) {
        b.append(i > 0 ? "," : "");
        Object v = names == null ? rs.getObject(i + 1) : rs.getObject(columns.get(i));
        value(b, v);
      }
      b.append("]");
    }
    return b.append("]}").toString();
  }

  private static void value(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Boolean) {
      b.append(v);
    } else if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
      b.append(v);
    } else if (v instanceof BigDecimal d) {
      b.append(d.toPlainString());
    } else if (v instanceof Float || v instanceof Double) {
      double d = ((Number) v).doubleValue();
      if (Double.isFinite(d)) {
        b.append(new BigDecimal(d).toString().equals(String.valueOf(d)) ? String.valueOf(d) : Double.toString(d));
      } else {
        string(b, Double.toString(d)); // NaN and the infinities have no JSON number
      }
    } else {
      string(b, v.toString());
    }
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
