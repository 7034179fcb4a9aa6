// The ASCII catalog writer's pieces (table_ascii.cpp) that the GPU's writer
// (core/cuda/table_ascii_gpu.cu) shares: the header, the columns' formats, and rows as text for
// the rows the GPU leaves to the host.
#pragma once

#include <string>
#include <vector>

#include "celeris/table.hpp"
#include "core/number_format.hpp"

namespace celeris {

// The ASCII_HEAD header: a line per column, numbered by element.
std::string ascii_header_text(const Table& table);
// Each column's NumberFormat (its print_format, else %d for integers and %.10g).
std::vector<NumberFormat> ascii_column_formats(const Table& table);
// Rows [first, last) as text lines, appended to `out`.
void append_ascii_rows(const Table& table, const std::vector<NumberFormat>& formats, size_t first,
                       size_t last, std::string& out);

}  // namespace celeris
