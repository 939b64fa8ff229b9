package io.iceflight.minidfs;

import java.io.File;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Starts an in-process HDFS (one NameNode, one DataNode) for the Go tests of
 * fileio/hdfs on loopback ports, prints "READY hdfs://127.0.0.1:PORT" on
 * standard output once it serves, and shuts it down when standard input
 * reaches EOF (the test that started it ended or died) or on SIGTERM.
 *
 * <p>Usage: minidfs --base DIR --nn-port N [--nn-http-port N] [--dn-port N]
 * [--dn-http-port N] [--dn-ipc-port N] [--format true|false]. With
 * "--format false" it serves the file system an earlier run left in DIR
 * (a restart after a crash).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    String base = null;
    int nnPort = 0;
    int nnHttpPort = 0;
    int dnPort = 0;
    int dnHttpPort = 0;
    int dnIpcPort = 0;
    boolean format = true;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--base" -> base = v;
        case "--nn-port" -> nnPort = Integer.parseInt(v);
        case "--nn-http-port" -> nnHttpPort = Integer.parseInt(v);
        case "--dn-port" -> dnPort = Integer.parseInt(v);
        case "--dn-http-port" -> dnHttpPort = Integer.parseInt(v);
        case "--dn-ipc-port" -> dnIpcPort = Integer.parseInt(v);
        case "--format" -> format = Boolean.parseBoolean(v);
        default -> usage("unknown flag " + a);
      }
    }
    if (base == null || nnPort == 0) {
      usage("--base and --nn-port are required");
    }

    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(base).getAbsolutePath());
    // Everything on loopback: the tests must reach nothing else, and the
    // DataNode must advertise an address the Go client can dial.
    conf.set("dfs.datanode.address", "127.0.0.1:" + dnPort);
    conf.set("dfs.datanode.http.address", "127.0.0.1:" + dnHttpPort);
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:" + dnIpcPort);
    conf.set("dfs.namenode.http-address", "127.0.0.1:" + nnHttpPort);
    conf.setBoolean("dfs.datanode.use.datanode.hostname", false);
    conf.setBoolean("dfs.client.use.datanode.hostname", false);
    // Permissions on, as on a real cluster: the tests check refusals.
    conf.setBoolean("dfs.permissions.enabled", true);
    // One DataNode: a block has one replica, and writes must not wait for
    // a second one that never comes.
    conf.setInt("dfs.replication", 1);
    // A restart serves as soon as the DataNode has reported its blocks:
    // no safe-mode grace period, no delay before the first report, and
    // heartbeats every second.
    conf.setInt("dfs.namenode.safemode.extension", 0);
    conf.setInt("dfs.blockreport.initialDelay", 0);
    conf.setInt("dfs.heartbeat.interval", 1);
    // A small heap and few threads: the machine is shared.
    conf.setInt("dfs.namenode.handler.count", 4);
    conf.setInt("dfs.datanode.handler.count", 4);

    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf)
        .nameNodePort(nnPort)
        .nameNodeHttpPort(nnHttpPort)
        .numDataNodes(1)
        .format(format)
        .manageNameDfsDirs(true)
        .build();
    cluster.waitActive();

    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.countDown();
      cluster.shutdown(true);
    }));
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

    System.out.println("READY hdfs://127.0.0.1:" + cluster.getNameNodePort());
    System.out.flush();
    stop.await();
  }

  private static void usage(String why) {
    System.err.println("minidfs: " + why);
    System.err.println("usage: minidfs --base DIR --nn-port N [--nn-http-port N] "
        + "[--dn-port N] [--dn-http-port N] [--dn-ipc-port N] [--format true|false]");
    System.exit(2);
  }
}
