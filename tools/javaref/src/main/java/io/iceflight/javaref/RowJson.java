package io.iceflight.javaref;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;
import org.apache.iceberg.variants.Variant;

/**
 * Writes Iceberg generic values in the canonical JSON form documented in
 * testdata/conformance/README.md.
 */
final class RowJson {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private RowJson() {}

  /** Writes one row as a JSON object keyed by the schema's top-level field names. */
  static void writeRow(JsonGenerator gen, Schema schema, Record row) throws IOException {
    writeStruct(gen, schema.asStruct(), row);
  }

  private static void writeStruct(JsonGenerator gen, Types.StructType type, Object value)
      throws IOException {
    gen.writeStartObject();
    List<Types.NestedField> fields = type.fields();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      gen.writeFieldName(field.name());
      writeValue(gen, field.type(), fieldValue(value, field, i));
    }
    gen.writeEndObject();
  }

  /**
   * Reads a struct field. Records are read by name because the reader may hand back a wider
   * struct than the projection (columns that delete filtering needs are appended).
   */
  private static Object fieldValue(Object struct, Types.NestedField field, int pos) {
    if (struct instanceof Record) {
      Record record = (Record) struct;
      if (record.struct().field(field.name()) != null) {
        return record.getField(field.name());
      }
      return record.get(pos);
    }
    if (struct instanceof StructLike) {
      return ((StructLike) struct).get(pos, Object.class);
    }
    throw new IllegalArgumentException("not a struct value: " + struct.getClass().getName());
  }

  static void writeValue(JsonGenerator gen, Type type, Object value) throws IOException {
    if (value == null) {
      gen.writeNull();
      return;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        gen.writeBoolean((Boolean) value);
        return;
      case INTEGER:
        gen.writeNumber(((Number) value).intValue());
        return;
      case LONG:
        gen.writeNumber(((Number) value).longValue());
        return;
      case FLOAT:
        writeFloat(gen, ((Number) value).floatValue());
        return;
      case DOUBLE:
        writeDouble(gen, ((Number) value).doubleValue());
        return;
      case DECIMAL:
        writeDecimal(gen, (Types.DecimalType) type, value);
        return;
      case DATE:
        gen.writeNumber(dateDays(value));
        return;
      case TIME:
        gen.writeNumber(timeMicros(value));
        return;
      case TIMESTAMP:
        gen.writeNumber(timestampUnits(value, false));
        return;
      case TIMESTAMP_NANO:
        gen.writeNumber(timestampUnits(value, true));
        return;
      case STRING:
        gen.writeString(value.toString());
        return;
      case UUID:
        gen.writeString(uuidString(value));
        return;
      case FIXED:
      case BINARY:
      case GEOMETRY:
      case GEOGRAPHY:
        gen.writeString(hex(value));
        return;
      case STRUCT:
        writeStruct(gen, type.asStructType(), value);
        return;
      case LIST:
        writeList(gen, type.asListType(), value);
        return;
      case MAP:
        writeMap(gen, type.asMapType(), value);
        return;
      case VARIANT:
        writeVariant(gen, (Variant) value);
        return;
      case UNKNOWN:
        gen.writeNull();
        return;
      default:
        throw new IllegalArgumentException("unsupported type " + type);
    }
  }

  /**
   * Writes a variant as the hex of its serialized metadata and value, the
   * bytes the Variant spec defines, so any reader can be compared exactly.
   */
  private static void writeVariant(JsonGenerator gen, Variant variant) throws IOException {
    ByteBuffer metadata =
        ByteBuffer.allocate(variant.metadata().sizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
    variant.metadata().writeTo(metadata, 0);
    ByteBuffer value =
        ByteBuffer.allocate(variant.value().sizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
    variant.value().writeTo(value, 0);
    gen.writeStartObject();
    gen.writeStringField("metadata", hex(metadata));
    gen.writeStringField("value", hex(value));
    gen.writeEndObject();
  }

  private static void writeFloat(JsonGenerator gen, float f) throws IOException {
    if (Float.isNaN(f)) {
      gen.writeString("NaN");
    } else if (Float.isInfinite(f)) {
      gen.writeString(f > 0 ? "Infinity" : "-Infinity");
    } else {
      // USE_FAST_DOUBLE_WRITER is on: shortest digits that round-trip as a float32.
      gen.writeNumber(f);
    }
  }

  private static void writeDouble(JsonGenerator gen, double d) throws IOException {
    if (Double.isNaN(d)) {
      gen.writeString("NaN");
    } else if (Double.isInfinite(d)) {
      gen.writeString(d > 0 ? "Infinity" : "-Infinity");
    } else {
      gen.writeNumber(d);
    }
  }

  private static void writeDecimal(JsonGenerator gen, Types.DecimalType type, Object value)
      throws IOException {
    BigDecimal dec = (BigDecimal) value;
    if (dec.scale() != type.scale()) {
      try {
        dec = dec.setScale(type.scale());
      } catch (ArithmeticException e) {
        // keep the reader's value rather than rounding it
      }
    }
    gen.writeString(dec.toPlainString());
  }

  private static long dateDays(Object value) {
    if (value instanceof LocalDate) {
      return ((LocalDate) value).toEpochDay();
    }
    return ((Number) value).longValue();
  }

  private static long timeMicros(Object value) {
    if (value instanceof LocalTime) {
      return ((LocalTime) value).toNanoOfDay() / 1000L;
    }
    return ((Number) value).longValue();
  }

  private static long timestampUnits(Object value, boolean nanos) {
    long seconds;
    long nanoOfSecond;
    if (value instanceof LocalDateTime) {
      LocalDateTime ldt = (LocalDateTime) value;
      seconds = ldt.toEpochSecond(ZoneOffset.UTC);
      nanoOfSecond = ldt.getNano();
    } else if (value instanceof OffsetDateTime) {
      Instant instant = ((OffsetDateTime) value).toInstant();
      seconds = instant.getEpochSecond();
      nanoOfSecond = instant.getNano();
    } else if (value instanceof ZonedDateTime) {
      Instant instant = ((ZonedDateTime) value).toInstant();
      seconds = instant.getEpochSecond();
      nanoOfSecond = instant.getNano();
    } else if (value instanceof Instant) {
      seconds = ((Instant) value).getEpochSecond();
      nanoOfSecond = ((Instant) value).getNano();
    } else {
      // already in Iceberg's internal unit
      return ((Number) value).longValue();
    }
    if (nanos) {
      return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanoOfSecond);
    }
    return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), nanoOfSecond / 1000L);
  }

  private static String uuidString(Object value) {
    UUID uuid;
    if (value instanceof UUID) {
      uuid = (UUID) value;
    } else if (value instanceof byte[]) {
      uuid = UUIDUtil.convert((byte[]) value);
    } else if (value instanceof ByteBuffer) {
      uuid = UUIDUtil.convert((ByteBuffer) value);
    } else {
      uuid = UUID.fromString(value.toString());
    }
    return uuid.toString().toLowerCase(java.util.Locale.ROOT);
  }

  static String hex(Object value) {
    byte[] bytes;
    if (value instanceof byte[]) {
      bytes = (byte[]) value;
    } else if (value instanceof ByteBuffer) {
      ByteBuffer buf = ((ByteBuffer) value).duplicate();
      bytes = new byte[buf.remaining()];
      buf.get(bytes);
    } else {
      throw new IllegalArgumentException("not a binary value: " + value.getClass().getName());
    }
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(out);
  }

  private static void writeList(JsonGenerator gen, Types.ListType type, Object value)
      throws IOException {
    gen.writeStartArray();
    for (Object element : (Collection<?>) value) {
      writeValue(gen, type.elementType(), element);
    }
    gen.writeEndArray();
  }

  private static void writeMap(JsonGenerator gen, Types.MapType type, Object value)
      throws IOException {
    gen.writeStartArray();
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
      gen.writeStartObject();
      gen.writeFieldName("key");
      writeValue(gen, type.keyType(), entry.getKey());
      gen.writeFieldName("value");
      writeValue(gen, type.valueType(), entry.getValue());
      gen.writeEndObject();
    }
    gen.writeEndArray();
  }
}
