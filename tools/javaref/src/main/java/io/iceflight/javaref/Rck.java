package io.iceflight.javaref;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.rest.IceflightRckTests;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs Iceberg's REST catalog compatibility tests ({@link IceflightRckTests}: Iceberg's
 * CatalogTests through its REST client) against a server with the JUnit Platform launcher, and
 * prints one JSON line per test: {@code test}, {@code status} (passed, failed, aborted, skipped)
 * and, for the others, {@code reason}; then a tally line. Flags become the catalog's properties
 * (system properties, which RCKUtils reads): {@code --uri}, {@code --warehouse}, {@code
 * --credential}, {@code --prop KEY=VALUE} (the {@code rck.*} claims among them). {@code --test
 * NAME(PARAMETER TYPES)} runs one test method (repeatable); {@code --list} prints the methods in
 * that form and runs none. Exit 0 when no test failed.
 */
final class Rck {
  private Rck() {}

  static int run(String[] args) {
    List<DiscoverySelector> selectors = new ArrayList<>();
    boolean list = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--list")) {
        list = true;
        continue;
      }
      if (i + 1 >= args.length) {
        return usage("missing value after " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--uri":
        case "--warehouse":
        case "--credential":
          System.setProperty(a.substring(2), v);
          break;
        case "--prop":
          int eq = v.indexOf('=');
          if (eq <= 0) {
            return usage("--prop wants KEY=VALUE, got " + v);
          }
          System.setProperty(v.substring(0, eq), v.substring(eq + 1));
          break;
        case "--test":
          int paren = v.indexOf('(');
          selectors.add(
              paren < 0
                  ? selectMethod(IceflightRckTests.class, v)
                  : selectMethod(
                      IceflightRckTests.class,
                      v.substring(0, paren),
                      v.substring(paren + 1, v.length() - 1)));
          break;
        default:
          return usage("unknown flag " + a);
      }
    }
    if (selectors.isEmpty()) {
      selectors.add(selectClass(IceflightRckTests.class));
    }
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Launcher launcher = LauncherFactory.create();
    if (list) {
      // One line per test method, as --test takes it: NAME(PARAMETER TYPES).
      TestPlan plan = launcher.discover(request);
      Set<String> methods = new TreeSet<>();
      for (TestIdentifier root : plan.getRoots()) {
        for (TestIdentifier id : plan.getDescendants(root)) {
          if (id.getSource().orElse(null) instanceof MethodSource) {
            MethodSource m = (MethodSource) id.getSource().get();
            methods.add(m.getMethodName() + "(" + m.getMethodParameterTypes() + ")");
          }
        }
      }
      methods.forEach(out::println);
      return 0;
    }
    if (System.getProperty("uri") == null) {
      return usage("--uri is required");
    }
    Tally tally = new Tally(out);
    launcher.execute(request, tally);
    out.printf(
        "rck: %d passed, %d failed, %d skipped%n", tally.passed, tally.failed, tally.skipped);
    return tally.failed == 0 ? 0 : 1;
  }

  /** Prints each test's outcome as it ends and counts them. */
  private static final class Tally implements TestExecutionListener {
    private final PrintStream out;
    int passed;
    int failed;
    int skipped;

    Tally(PrintStream out) {
      this.out = out;
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      if (id.isTest()) {
        skipped++;
        print(id, "skipped", reason);
      }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      if (!id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
        return;
      }
      String reason = result.getThrowable().map(Rck::describe).orElse(null);
      switch (result.getStatus()) {
        case SUCCESSFUL:
          passed++;
          print(id, "passed", null);
          break;
        case ABORTED:
          // An assumption that did not hold: the server claims it lacks the feature.
          skipped++;
          print(id, "aborted", reason);
          break;
        default:
          failed++;
          print(id, "failed", reason);
      }
    }

    private void print(TestIdentifier id, String status, String reason) {
      ObjectNode line = Oracle.MAPPER.createObjectNode();
      String name = id.getDisplayName();
      if (id.getSource().orElse(null) instanceof MethodSource) {
        String method = ((MethodSource) id.getSource().get()).getMethodName();
        name = name.startsWith(method) ? name : method + " " + name;
      }
      line.put("test", name);
      line.put("status", status);
      if (reason != null) {
        line.put("reason", reason);
      }
      out.println(line);
    }
  }

  /** The exception's class and message, and its stack with JAVAREF_DEBUG set. */
  private static String describe(Throwable e) {
    String text = e.getClass().getName() + ": " + e.getMessage();
    if (System.getenv("JAVAREF_DEBUG") != null) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      text = trace.toString();
    }
    return text;
  }

  private static int usage(String why) {
    System.err.println("rck: " + why);
    System.err.println(
        "usage: rck --uri URI [--warehouse W] [--credential ID:SECRET] [--prop KEY=VALUE ...]"
            + " [--test METHOD ...]");
    return 2;
  }
}
