// One extraction run as the CLI (and the Python module) performs it: read a FITS image, take
// GAIN and SATURATE from its header unless set, extract, build the requested catalog columns and
// write the catalog in the requested format.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/table.hpp"

namespace celeris::extract {

struct FileRunResult {
  Table catalog;
  RunInfo info;
  int width = 0, height = 0, hdu = 0;
  double gain = 0, satur_level = 0;
  bool has_wcs = false;
  double seconds = 0;                 // wall time of the whole run, reading and writing included
  std::vector<std::string> warnings;  // every warning of the run (also given to the sink)
};

// Receives each warning as it arises (the CLI prints it on stderr at once).
using WarningSink = std::function<void(const std::string&)>;

// Runs the extraction of `image_path` with `settings`; writes settings.catalog_name unless the
// catalog type is NONE. The catalog file appears only when complete. Warnings (unknown catalog
// parameters) go to `warn` when given, and into FileRunResult::warnings. Inputs SExtractor would
// use and celeris cannot (several image extensions, an external header) are refused first.
FileRunResult extract_file(const std::string& image_path, const Settings& settings,
                           const WarningSink& warn = {});

// Writes a catalog table in a SExtractor catalog format.
void write_catalog(const std::string& path, CatalogType type, const Table& table,
                   const class celeris::FitsHeader& image_header,
                   const std::vector<std::string>& extra_cards);

}  // namespace celeris::extract
