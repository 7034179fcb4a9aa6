// The numeric columns of a Parquet file through the Arrow C++ Parquet reader (pyarrow's
// libparquet / libarrow; cmake/parquet.cmake). Only the requested column chunks are read.
#include "parquet_file.hpp"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "celeris/error.hpp"

namespace celeris::xmatch::parquet_file {

namespace {

std::unique_ptr<parquet::arrow::FileReader> open(const std::string& path) {
  auto in = arrow::io::ReadableFile::Open(path);
  if (!in.ok()) throw Error(path + ": cannot open (" + in.status().message() + ")");
  try {
    parquet::arrow::FileReaderBuilder builder;
    const arrow::Status opened = builder.Open(*in);
    if (!opened.ok()) throw Error(path + ": not a Parquet file (" + opened.message() + ")");
    // One thread, no pre-buffering: the caller reads one partition at a time (the MPI ranks and
    // the join bring the parallelism), and Arrow's I/O thread pool hand-offs cost more than the
    // read itself on the small column chunks of a HATS partition (futex wake-ups were half the
    // time of a 12,288-partition count on the dev VM).
    parquet::ArrowReaderProperties props;
    props.set_use_threads(false);
    props.set_pre_buffer(false);
    auto reader = builder.memory_pool(arrow::default_memory_pool())->properties(props)->Build();
    if (!reader.ok())
      throw Error(path + ": not a Parquet file (" + reader.status().message() + ")");
    return std::move(*reader);
  } catch (const parquet::ParquetException& e) {
    throw Error(path + ": not a Parquet file (" + e.what() + ")");
  }
}

// The Table type of an Arrow type, or none for a column celeris does not read.
std::optional<ColumnType> column_type(arrow::Type::type t) {
  switch (t) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::UINT8:
    case arrow::Type::INT16:
      return ColumnType::Int16;
    case arrow::Type::UINT16:
    case arrow::Type::INT32:
      return ColumnType::Int32;
    case arrow::Type::UINT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT64:
      return ColumnType::Int64;
    case arrow::Type::HALF_FLOAT:
    case arrow::Type::FLOAT:
      return ColumnType::Float32;
    case arrow::Type::DOUBLE:
      return ColumnType::Float64;
    default:
      return std::nullopt;
  }
}

// Appends one chunk's values to `out` (nulls as NaN); returns whether it held a null.
template <class ArrayType>
bool append_values(const arrow::Array& chunk, std::vector<double>& out) {
  const auto& a = static_cast<const ArrayType&>(chunk);
  for (int64_t k = 0; k < a.length(); ++k)
    out.push_back(a.IsNull(k) ? std::numeric_limits<double>::quiet_NaN() : double(a.Value(k)));
  return a.null_count() > 0;
}

bool append_chunk(const arrow::Array& chunk, std::vector<double>& out) {
  switch (chunk.type_id()) {
    case arrow::Type::BOOL:
      return append_values<arrow::BooleanArray>(chunk, out);
    case arrow::Type::INT8:
      return append_values<arrow::Int8Array>(chunk, out);
    case arrow::Type::UINT8:
      return append_values<arrow::UInt8Array>(chunk, out);
    case arrow::Type::INT16:
      return append_values<arrow::Int16Array>(chunk, out);
    case arrow::Type::UINT16:
      return append_values<arrow::UInt16Array>(chunk, out);
    case arrow::Type::INT32:
      return append_values<arrow::Int32Array>(chunk, out);
    case arrow::Type::UINT32:
      return append_values<arrow::UInt32Array>(chunk, out);
    case arrow::Type::INT64:
      return append_values<arrow::Int64Array>(chunk, out);
    case arrow::Type::UINT64:
      return append_values<arrow::UInt64Array>(chunk, out);
    case arrow::Type::HALF_FLOAT: {
      // Half floats are stored as their 16-bit patterns; Arrow converts them.
      const auto& a = static_cast<const arrow::HalfFloatArray&>(chunk);
      for (int64_t k = 0; k < a.length(); ++k)
        out.push_back(a.IsNull(k) ? std::numeric_limits<double>::quiet_NaN()
                                  : double(arrow::util::Float16::FromBits(a.Value(k)).ToFloat()));
      return a.null_count() > 0;
    }
    case arrow::Type::FLOAT:
      return append_values<arrow::FloatArray>(chunk, out);
    case arrow::Type::DOUBLE:
      return append_values<arrow::DoubleArray>(chunk, out);
    default:
      throw Error("unexpected Arrow type " + chunk.type()->ToString());
  }
}

}  // namespace

bool available() {
  return true;
}

struct File::Impl {
  std::string path;
  std::unique_ptr<parquet::arrow::FileReader> reader;
};

File::File(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->reader = open(path);
}

File::~File() = default;

Table File::schema() const {
  const auto& reader = impl_->reader;
  Table t;
  t.rows = size_t(reader->parquet_reader()->metadata()->num_rows());
  for (const auto& f : reader->manifest().schema_fields) {
    if (!f.is_leaf()) continue;  // structs, lists, maps
    const auto type = column_type(f.field->type()->id());
    if (!type) continue;
    Column c;
    c.name = f.field->name();
    c.type = *type;
    t.columns.push_back(std::move(c));
  }
  return t;
}

uint64_t File::rows() const {
  return uint64_t(impl_->reader->parquet_reader()->metadata()->num_rows());
}

void File::read(const std::vector<std::string>& names, Table& out) const {
  const auto& reader = impl_->reader;
  const std::string& path = impl_->path;
  const auto& fields = reader->manifest().schema_fields;
  std::vector<int> leaves;
  std::vector<ColumnType> types;
  for (const std::string& name : names) {
    const parquet::arrow::SchemaField* found = nullptr;
    for (const auto& f : fields)
      if (f.is_leaf() && f.field->name() == name && column_type(f.field->type()->id())) found = &f;
    if (!found) throw Error(path + ": no numeric column '" + name + "'");
    leaves.push_back(found->column_index);
    types.push_back(*column_type(found->field->type()->id()));
  }
  std::shared_ptr<arrow::Table> table;
  try {
    auto r = reader->ReadTable(leaves);
    if (!r.ok()) throw Error(path + ": " + r.status().message());
    table = *r;
  } catch (const parquet::ParquetException& e) {
    throw Error(path + ": corrupt Parquet data (" + e.what() + ")");
  }
  out.columns.clear();
  out.rows = size_t(table->num_rows());
  for (size_t k = 0; k < names.size(); ++k) {
    Column c;
    c.name = names[k];
    c.type = types[k];
    c.values.reserve(out.rows);
    bool nulls = false;
    for (const auto& chunk : table->column(int(k))->chunks())
      nulls |= append_chunk(*chunk, c.values);
    if (c.values.size() != out.rows) throw Error(path + ": column '" + names[k] + "' is short");
    if (nulls) c.type = ColumnType::Float64;  // NaN blanks need a float column in the output
    out.columns.push_back(std::move(c));
  }
}

}  // namespace celeris::xmatch::parquet_file
