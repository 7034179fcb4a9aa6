// The SEX* cards SExtractor writes about a run (sexhead.h): the catalog table's header, and in
// FITS_LDAC the LDAC_IMHEAD cell after the image header, where PSFEx and SCAMP read them.
#pragma once

#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/extract_settings.hpp"

namespace celeris::extract {

struct RunSummary {
  std::string image_name;  // as given, path left out
  int width = 0, height = 0;
  size_t n_params = 0, n_objects = 0;
  double elapsed_s = 0;
};

// In SExtractor's order. Keys celeris reads but does not act on (STARNNW_NAME, MAG_GAMMA,
// MEMORY_PIXSTACK, the weight scalings) and the FITS extension counts are left out.
// `config` is the run's, gain and saturation level as read from the header.
std::vector<std::string> summary_cards(const Settings& settings, const Config& config,
                                       const RunInfo& info, const RunSummary& run);

}  // namespace celeris::extract
