package org.trelliscms.tools.neo4j;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Starts a throw-away Neo4j 5.26 Community server (in-process, via neo4j-harness) for tests.
 *
 * <p>Environment:
 * <ul>
 *   <li>{@code NEO4J_BOLT_PORT} - Bolt port on 127.0.0.1 (default 7687)</li>
 *   <li>{@code NEO4J_PASSWORD} - password of user {@code neo4j} (default {@code trellis-test-pw})</li>
 *   <li>{@code NEO4J_AUTH} - {@code true} (default) or {@code false} to disable authentication</li>
 *   <li>{@code NEO4J_DATA_DIR} - parent directory for the store (default: a fresh temp dir)</li>
 *   <li>{@code NEO4J_PAGECACHE_MB} - page cache size in MiB (default 128)</li>
 * </ul>
 *
 * <p>Prints exactly one line, {@code NEO4J_READY bolt://127.0.0.1:<port>}, to stdout once the
 * server accepts Bolt connections and the default database is online. Neo4j's own logs go to
 * files inside the store directory. On SIGTERM/SIGINT the server is shut down and its store is
 * deleted (the harness always deletes its randomly named store directory on close).
 */
public final class Launcher {

    private static final String DEFAULT_PASSWORD = "trellis-test-pw";
    private static final int DEFAULT_BOLT_PORT = 7687;

    private Launcher() {}

    /** Set once the harness is built, so a startup failure can dump Neo4j's own logs. */
    private static volatile Neo4j started;

    /** Set when the shutdown hook starts closing Neo4j. */
    private static final AtomicBoolean CLOSING = new AtomicBoolean(false);

    public static void main(String[] args) {
        // Keep stdout for the protocol line; anything stray from libraries goes to stderr.
        PrintStream protocol = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        try {
            run(protocol);
        } catch (Throwable t) {
            if (CLOSING.get()) {
                // SIGTERM/SIGINT arrived while still starting: not an error of ours.
                System.err.println("NEO4J_ABORTED shutdown requested during startup");
                System.exit(143);
            }
            System.err.println("NEO4J_FAILED " + t);
            t.printStackTrace(System.err);
            Neo4j neo4j = started;
            if (neo4j != null) {
                try {
                    neo4j.printLogs(System.err);
                } catch (Throwable ignored) {
                    // best effort
                }
            }
            System.err.flush();
            // exit (not halt) so the shutdown hook, if already registered, closes Neo4j.
            System.exit(1);
        }
    }

    private static void run(PrintStream protocol) throws Exception {
        int port = intEnv("NEO4J_BOLT_PORT", DEFAULT_BOLT_PORT);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("NEO4J_BOLT_PORT out of range: " + port);
        }
        String password = strEnv("NEO4J_PASSWORD", DEFAULT_PASSWORD);
        boolean auth = !"false".equalsIgnoreCase(strEnv("NEO4J_AUTH", "true"));
        long pageCacheMb = intEnv("NEO4J_PAGECACHE_MB", 128);

        if (portInUse(port)) {
            throw new IllegalStateException("port 127.0.0.1:" + port + " is already in use");
        }

        String dataDirEnv = System.getenv("NEO4J_DATA_DIR");
        boolean ownTempDir = dataDirEnv == null || dataDirEnv.isBlank();
        Path workDir = ownTempDir
                ? Files.createTempDirectory("trellis-neo4j-")
                : Files.createDirectories(Paths.get(dataDirEnv).toAbsolutePath());

        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder(workDir)
                // Bolt only; no HTTP/Jetty (Trellis talks Bolt through neo4j-driver).
                .withDisabledServer()
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .withConfig(GraphDatabaseSettings.auth_enabled, auth)
                .withConfig(GraphDatabaseSettings.auth_minimum_password_length, 1)
                .withConfig(GraphDatabaseSettings.pagecache_memory, pageCacheMb * 1024L * 1024L)
                .withConfig(GraphDatabaseSettings.udc_enabled, false)
                .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .withConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                // Internal (unsupported) settings, pinned with the Neo4j version: by default the Bolt
                // server waits 5 s + 5 s for connections/threads on shutdown, which only slows tests.
                .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1));

        Neo4j neo4j;
        try {
            neo4j = builder.build();
        } catch (RuntimeException | Error e) {
            // e.g. the port was taken between our check and Neo4j's bind: do not leave a store behind.
            if (ownTempDir) {
                deleteQuietly(workDir);
            }
            throw e;
        }
        started = neo4j;

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (CLOSING.compareAndSet(false, true)) {
                try {
                    neo4j.close();
                } catch (Throwable t) {
                    System.err.println("neo4j shutdown error: " + t);
                } finally {
                    if (ownTempDir) {
                        deleteQuietly(workDir);
                    }
                    stopped.countDown();
                }
            }
        }, "neo4j-shutdown"));

        DatabaseManagementService dbms = neo4j.databaseManagementService();
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        if (!system.isAvailable(TimeUnit.SECONDS.toMillis(120)) || !db.isAvailable(TimeUnit.SECONDS.toMillis(120))) {
            throw new IllegalStateException("databases did not become available");
        }

        if (auth) {
            // Embedded transactions run with full privileges, so we can set the password of the
            // built-in user directly (no forced password change on first login).
            system.executeTransactionally(
                    "ALTER USER neo4j SET PLAINTEXT PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
        }

        // Smoke-test the default database before announcing readiness.
        db.executeTransactionally("RETURN 1");
        if (!"false".equalsIgnoreCase(strEnv("NEO4J_WARMUP", "true"))) {
            warmUp(db);
        }
        if (!portInUse(port)) {
            throw new IllegalStateException("Bolt is not accepting connections on 127.0.0.1:" + port);
        }

        protocol.println("NEO4J_READY bolt://127.0.0.1:" + port);
        protocol.flush();

        // Block until the shutdown hook has run (SIGTERM / SIGINT).
        stopped.await();
    }

    /**
     * Exercises full-text and vector indexes once (then removes every trace of data and indexes),
     * so that the JIT/class-loading cost of the first such queries is paid before NEO4J_READY
     * rather than inside the first test's timeout. Doubles as a self-test of those features.
     */
    private static void warmUp(GraphDatabaseService db) {
        String label = "TrellisHarnessWarmup";
        db.executeTransactionally("CREATE FULLTEXT INDEX trellis_harness_warmup_ft IF NOT EXISTS FOR (n:" + label
                + ") ON EACH [n.trellisHarnessWarmupText]");
        db.executeTransactionally("CREATE VECTOR INDEX trellis_harness_warmup_vec IF NOT EXISTS FOR (n:" + label
                + ") ON n.trellisHarnessWarmupVec OPTIONS { indexConfig: {"
                + " `vector.dimensions`: 4, `vector.similarity_function`: 'cosine' } }");
        db.executeTransactionally("CALL db.awaitIndexes(120)");
        try {
            db.executeTransactionally("UNWIND range(1, 3) AS i CREATE (:" + label
                    + " {trellisHarnessWarmupText: 'warm up ' + i, trellisHarnessWarmupVec: [toFloat(i), 1.0, 0.0, 0.0]})");
            // Committed writes should be visible at once; allow a short grace period anyway, and only
            // warn (in the log) rather than refuse to start if they are not.
            long ft = -1;
            long vec = -1;
            for (int attempt = 0; attempt < 25; attempt++) {
                ft = db.executeTransactionally(
                        "CALL db.index.fulltext.queryNodes('trellis_harness_warmup_ft', 'warm') YIELD node"
                                + " RETURN count(node) AS c",
                        Map.of(), r -> (Long) r.next().get("c"));
                vec = db.executeTransactionally(
                        "CALL db.index.vector.queryNodes('trellis_harness_warmup_vec', 2, [1.0, 1.0, 0.0, 0.0])"
                                + " YIELD node RETURN count(node) AS c",
                        Map.of(), r -> (Long) r.next().get("c"));
                if (ft == 3 && vec == 2) {
                    break;
                }
                sleepQuietly(200);
            }
            if (ft != 3 || vec != 2) {
                System.err.println("NEO4J_WARN warm-up self-test: fulltext hits=" + ft + " (expected 3), vector hits="
                        + vec + " (expected 2)");
            }
        } finally {
            db.executeTransactionally("MATCH (n:" + label + ") DETACH DELETE n");
            db.executeTransactionally("DROP INDEX trellis_harness_warmup_ft IF EXISTS");
            db.executeTransactionally("DROP INDEX trellis_harness_warmup_vec IF EXISTS");
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean portInUse(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String strEnv(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    private static int intEnv(String name, int dflt) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'");
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
