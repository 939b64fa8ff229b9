package io.iceflight.hms;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.security.HadoopThriftAuthBridge;
import org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool;

/**
 * Starts a standalone Hive Metastore (Thrift, no SASL) over an embedded Derby
 * database in a folder of its own, for the Go tests of catalog/hive, on
 * 127.0.0.1:PORT. It prints "READY thrift://127.0.0.1:PORT" on standard
 * output once it serves, and exits when standard input reaches EOF (the test
 * that started it ended or died) or on SIGTERM.
 *
 * <p>Usage: hms --dir DIR --port N [--home DIR]. DIR holds the Derby
 * database and the warehouse roots (managed, external); an existing database is served as it
 * is (a restart after a crash). --home is the metastore's distribution
 * folder, whose scripts/metastore/upgrade/derby holds the schema scripts
 * (default: "home" beside the jar).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Throwable {
    String dir = null;
    String home = null;
    String dbURL = null;
    String dbUser = "";
    String dbPassword = "";
    int port = 0;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--dir" -> dir = v;
        case "--port" -> port = Integer.parseInt(v);
        case "--home" -> home = v;
        case "--db-url" -> dbURL = v;
        case "--db-user" -> dbUser = v;
        case "--db-password" -> dbPassword = v;
        default -> usage("unknown flag " + a);
      }
    }
    if (dir == null || port == 0) {
      usage("--dir and --port are required");
    }
    Path base = Paths.get(dir).toAbsolutePath();
    if (home == null) {
      Path jar = Paths.get(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      home = jar.getParent().resolve("home").toString();
    }
    System.setProperty("derby.stream.error.file", base.resolve("derby.log").toString());

    Configuration conf = MetastoreConf.newMetastoreConf();
    String dbType = "derby";
    // A PostgreSQL database is initialised once: the marker says so.
    Path initialised = base.resolve("schema-initialised");
    if (dbURL == null) {
      Path db = base.resolve("metastore_db");
      dbURL = "jdbc:derby:;databaseName=" + db + ";create=true";
      initialised = db;
      MetastoreConf.setVar(conf, MetastoreConf.ConfVars.CONNECTION_DRIVER,
          "org.apache.derby.jdbc.EmbeddedDriver");
    } else if (dbURL.startsWith("jdbc:postgresql:")) {
      dbType = "postgres";
      MetastoreConf.setVar(conf, MetastoreConf.ConfVars.CONNECTION_DRIVER, "org.postgresql.Driver");
      MetastoreConf.setVar(conf, MetastoreConf.ConfVars.CONNECTION_USER_NAME, dbUser);
      MetastoreConf.setVar(conf, MetastoreConf.ConfVars.PWD, dbPassword);
    } else {
      usage("--db-url: only jdbc:postgresql: URLs (Derby is the default)");
    }
    boolean fresh = !initialised.toFile().exists();
    MetastoreConf.setVar(conf, MetastoreConf.ConfVars.CONNECT_URL_KEY, dbURL);
    // The schema comes from the metastore's own script (below); datanucleus
    // adds what the script lacks and nothing checks the version.
    MetastoreConf.setBoolVar(conf, MetastoreConf.ConfVars.SCHEMA_VERIFICATION, false);
    MetastoreConf.setBoolVar(conf, MetastoreConf.ConfVars.AUTO_CREATE_ALL, true);
    // Two roots, as Hive 4 wants: an external table (every Iceberg table)
    // may not lie in the managed one, and a database made without a
    // location is placed in the external one.
    MetastoreConf.setVar(conf, MetastoreConf.ConfVars.WAREHOUSE,
        new File(base.toFile(), "managed").toURI().toString());
    MetastoreConf.setVar(conf, MetastoreConf.ConfVars.WAREHOUSE_EXTERNAL,
        new File(base.toFile(), "external").toURI().toString());
    MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_BIND_HOST, "127.0.0.1");
    // Few threads: the machine is shared, the tests open a handful of
    // connections.
    MetastoreConf.setLongVar(conf, MetastoreConf.ConfVars.SERVER_MIN_THREADS, 4);
    MetastoreConf.setLongVar(conf, MetastoreConf.ConfVars.SERVER_MAX_THREADS, 64);
    // Iceberg tables change their columns' types freely (the Hive columns
    // only mirror the schema), as Iceberg's own TestHiveMetastore allows.
    MetastoreConf.setBoolVar(conf,
        MetastoreConf.ConfVars.DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES, false);
    MetastoreConf.setBoolVar(conf, MetastoreConf.ConfVars.EVENT_DB_NOTIFICATION_API_AUTH, false);

    if (fresh) {
      int rc = new MetastoreSchemaTool().run(home,
          new String[] {"-initSchema", "-dbType", dbType}, null, conf);
      if (rc != 0) {
        System.err.println("hms: schema initialisation failed: " + rc);
        System.exit(1);
      }
      if (!dbType.equals("derby")) {
        Files.createFile(initialised);
      }
    }

    Thread stdin = new Thread(() -> {
      try (InputStream in = System.in) {
        byte[] buf = new byte[256];
        while (in.read(buf) >= 0) {
          // Input is ignored: only its end matters.
        }
      } catch (Exception e) {
        // A broken pipe means the same as EOF: the parent is gone.
      }
      System.exit(0);
    }, "stdin-eof");
    stdin.setDaemon(true);
    stdin.start();

    final int listen = port;
    Thread server = new Thread(() -> {
      try {
        // No background threads (compactor, housekeeping): the tests
        // need the Thrift API alone. Without them the metastore never
        // reports that it serves, so the port is polled below.
        HiveMetaStore.startMetaStore(listen, HadoopThriftAuthBridge.getBridge(), conf, false,
            new AtomicBoolean());
      } catch (Throwable t) {
        t.printStackTrace();
        System.exit(1);
      }
    }, "metastore");
    server.start();
    while (!listening(port)) {
      if (!server.isAlive()) {
        System.exit(1);
      }
      Thread.sleep(20);
    }
    System.out.println("READY thrift://127.0.0.1:" + port);
    System.out.flush();
    server.join();
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void usage(String why) {
    System.err.println("hms: " + why);
    System.err.println("usage: hms --dir DIR --port N [--home DIR]");
    System.exit(2);
  }
}
