package org.apache.iceberg.rest;

import java.util.Map;
import org.apache.iceberg.catalog.CatalogTests;
import org.apache.iceberg.util.PropertyUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Iceberg's own catalog test suite ({@link CatalogTests}, from iceberg-core's test jar) run
 * against a REST catalog server through Iceberg's REST client, configured as the REST
 * Compatibility Kit configures it ({@link RCKUtils}: {@code CATALOG_*} environment variables,
 * then system properties such as {@code uri}, {@code warehouse}, {@code credential}). It lives in
 * RCKUtils' package because RCKUtils is package-private.
 *
 * <p>What the server claims to support is read from the same properties, so that a test of a
 * feature the server refuses by design is skipped rather than failed: {@code
 * rck.requires-namespace-create} (default true), {@code rck.supports-nested-namespaces} (true),
 * {@code rck.supports-namespace-properties} (true), {@code rck.supports-server-side-retry}
 * (true), {@code rck.overrides-requested-location} (false), {@code rck.supports-names-with-dot}
 * (true), {@code rck.supports-names-with-slashes} (true), {@code rck.supports-empty-namespace}
 * (false).
 */
public class IceflightRckTests extends CatalogTests<RESTCatalog> {
  private static RESTCatalog client;

  @BeforeAll
  static void connect() {
    client = RCKUtils.initCatalogClient();
  }

  @AfterAll
  static void disconnect() throws Exception {
    client.close();
  }

  /** Each test starts from a catalog without the suite's namespaces. */
  @BeforeEach
  void purge() {
    RCKUtils.purgeCatalogTestEntries(client);
  }

  @Override
  protected RESTCatalog catalog() {
    return client;
  }

  @Override
  protected RESTCatalog initCatalog(String name, Map<String, String> props) {
    return RCKUtils.initCatalogClient(props);
  }

  private static boolean claim(String key, boolean fallback) {
    return PropertyUtil.propertyAsBoolean(client.properties(), key, fallback);
  }

  @Override
  protected boolean requiresNamespaceCreate() {
    return claim("rck.requires-namespace-create", true);
  }

  @Override
  protected boolean supportsNestedNamespaces() {
    return claim("rck.supports-nested-namespaces", true);
  }

  @Override
  protected boolean supportsNamespaceProperties() {
    return claim("rck.supports-namespace-properties", true);
  }

  @Override
  protected boolean supportsServerSideRetry() {
    return claim("rck.supports-server-side-retry", true);
  }

  @Override
  protected boolean overridesRequestedLocation() {
    return claim("rck.overrides-requested-location", false);
  }

  @Override
  protected boolean supportsNamesWithDot() {
    return claim("rck.supports-names-with-dot", true);
  }

  @Override
  protected boolean supportsNamesWithSlashes() {
    return claim("rck.supports-names-with-slashes", true);
  }

  @Override
  protected boolean supportsEmptyNamespace() {
    return claim("rck.supports-empty-namespace", false);
  }
}
