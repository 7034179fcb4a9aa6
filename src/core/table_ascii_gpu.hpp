// An ASCII catalog's text made on the GPU: the same bytes as ascii_table_text (table.hpp), for
// a stream of frames whose host cores are the bound. A crowded 4096^2 frame's catalog is 40k
// rows of 20 columns, 9 MB of text: formatting it took about a sixth of the stream's host time
// (stop 59's profile of bench_stream with catalogs). Here the host only packs the columns' values
// into one upload and copies the text back out; each GPU thread formats one row, with
// core/number_cell.hpp as the host's writer does. Rows holding a cell outside that road (NaN,
// infinities, values beyond its range) are formatted by the host (append_ascii_rows) and put in
// their place; where more than an eighth of the rows are such, the whole table is the host
// writer's (ascii_table_text, on all its threads).
#pragma once

#include <optional>
#include <string>

#include "celeris/table.hpp"

namespace celeris {

// ascii_table_text(table, header), made on the current CUDA device; nullopt where it is not made
// there (a build without CUDA, no device, no rows, or a column whose format is not one that
// number_cell.hpp covers): the caller then makes it on the host.
std::optional<std::string> ascii_table_text_gpu(const Table& table, bool header);

}  // namespace celeris
