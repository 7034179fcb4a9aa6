// Catalog parameters (SExtractor's output columns): names, units, types and formats, the
// .param file reader, and conversion of measured Objects into a Table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/table.hpp"
#include "celeris/wcs.hpp"
#include "extract/sextractor/world_frame.hpp"

namespace celeris::extract {

struct ParamSpec {
  const char* name;
  const char* unit;
  const char* description;
  ColumnType type;
  const char* format;  // printf format of one element
  bool is_vector;      // takes (n)
  bool needs_wcs;
};

const std::vector<ParamSpec>& parameter_table();
const ParamSpec* find_parameter(const std::string& name);

struct RequestedParam {
  const ParamSpec* spec;
  int size = 1;               // elements (vector parameters)
  int width = 0, height = 0;  // VIGNET(w,h): its two sizes (size = w * h)
};

// Parses a .param file: one name per line, optional "(n)" for vectors, '#' comments. Unknown
// names add a warning. A name listed again keeps its first place; a vector takes the sizes of its
// last listing (as SExtractor).
std::vector<RequestedParam> parse_parameter_list(const std::string& text, const std::string& origin,
                                                 std::vector<std::string>& warnings);
std::vector<RequestedParam> read_parameter_list(const std::string& path,
                                                std::vector<std::string>& warnings);
// The list used when PARAMETERS_NAME is "default.param" and no such file exists.
std::vector<RequestedParam> default_parameter_list();

// Sizes of the photometry vectors the request needs (apertures, flux fractions): the run
// measures at least these.
int requested_apertures(const std::vector<RequestedParam>& params, int configured);
int requested_fluxfracs(const std::vector<RequestedParam>& params, int configured);

// Builds the catalog table (FITS 1-based pixel coordinates). `world`: the image's world frame
// as SExtractor sees it (celestial or linear), needed by the world columns.
Table make_catalog(const Objects& objects, const std::vector<RequestedParam>& params,
                   const Config& config, const std::optional<WorldFrame>& world);

}  // namespace celeris::extract
