// JavaGlueWrite has Iceberg Java's GlueCatalog write two tables into the
// Glue catalog at an endpoint (moto in the tests), for the tests to compare
// the Glue tables Java writes with the ones iceflight writes: "created",
// only created, and "evolved", created, then a column renamed and one
// added, then properties set. Run with the javaref jar on the class path:
//
//	java -cp javaref.jar JavaGlueWrite.java ENDPOINT WAREHOUSE
//
// with the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.glue.GlueCatalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

public class JavaGlueWrite {
  public static void main(String[] args) throws Exception {
    String endpoint = args[0];
    String warehouse = args[1];
    GlueCatalog catalog = new GlueCatalog();
    catalog.initialize(
        "java",
        Map.of(
            "warehouse", warehouse,
            "glue.endpoint", endpoint,
            "client.region", "us-east-1",
            "io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"));
    Namespace ns = Namespace.of("jdb");
    catalog.createNamespace(ns, Map.of());
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get(), "the row's id"),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "price", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(4, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(5, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(6, "day", Types.DateType.get()),
            Types.NestedField.optional(7, "at", Types.TimeType.get()),
            Types.NestedField.optional(8, "u", Types.UUIDType.get()),
            Types.NestedField.optional(9, "f", Types.FixedType.ofLength(4)),
            Types.NestedField.optional(10, "b", Types.BinaryType.get()),
            Types.NestedField.optional(11, "flag", Types.BooleanType.get()),
            Types.NestedField.optional(12, "n", Types.IntegerType.get()),
            Types.NestedField.optional(13, "x", Types.FloatType.get()),
            Types.NestedField.optional(14, "y", Types.DoubleType.get()),
            Types.NestedField.optional(
                15, "tags", Types.ListType.ofOptional(16, Types.StringType.get())),
            Types.NestedField.optional(
                17,
                "attrs",
                Types.MapType.ofOptional(18, 19, Types.StringType.get(), Types.IntegerType.get())),
            Types.NestedField.optional(
                20,
                "point",
                Types.StructType.of(
                    Types.NestedField.required(21, "px", Types.DoubleType.get()),
                    Types.NestedField.optional(22, "py", Types.FloatType.get()))));
    catalog.createTable(
        TableIdentifier.of(ns, "created"),
        schema,
        PartitionSpec.unpartitioned(),
        Map.of("comment", "a table Java created"));
    Table evolved = catalog.createTable(TableIdentifier.of(ns, "evolved"), schema);
    evolved
        .updateSchema()
        .renameColumn("name", "label")
        .addColumn("extra", Types.LongType.get(), "added later")
        .commit();
    evolved
        .updateProperties()
        .set("comment", "evolved by Java")
        .set("write.data.path", warehouse + "/elsewhere/data")
        .commit();
    catalog.close();
  }
}
