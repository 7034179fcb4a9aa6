// External flag maps (SExtractor's FLAG_IMAGE, flag.c): each object's flag-map values combined
// over its isophotal pixels (IMAFLAGS_ISO) with the number of pixels entering the combination
// (NIMAFLAGS_ISO), per FLAG_TYPE, and merged as SExtractor's cleaning merges objects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/objects.hpp"

namespace celeris::extract {

struct ImageFlags {
  uint32_t flags = 0;  // IMAFLAGS_ISO
  int32_t count = 0;   // NIMAFLAGS_ISO
};

// getflags: the combination over `pixels`, in their order (SExtractor's pixel chain; only MOST
// depends on it, choosing the first value met among equally frequent ones). Pixels with value
// 0 are skipped. As in SExtractor, AND starts from 0 (so IMAFLAGS_ISO is always 0), and MIN/MAX
// count the pixels holding the extreme value.
ImageFlags combine_flags(const ObjectView& pixels, ImageView<const uint32_t> map, FlagType type);

// mergeflags: `slave` merged into `master` by cleaning.
void merge_flags(ImageFlags& master, const ImageFlags& slave, FlagType type);

// A flag map read as floats (read_fits_image) converted to integers; throws celeris::Error
// naming `name` when a value is not an integer in [0, 2^24] (beyond, a float does not hold
// every integer: those maps are refused rather than read wrong) or the size differs.
Image<uint32_t> flag_map_from_pixels(ImageView<const float> pixels, int64_t width, int64_t height,
                                     const std::string& name);

// IMAFLAGS_ISO / NIMAFLAGS_ISO of the catalog objects (row-major, maps.size() per object):
// combined on every deblended object, merged in cleaning's order (removed), then taken for the
// survivors in catalog order.
void image_flags(const ObjectList& objects, const std::vector<size_t>& removed_object,
                 const std::vector<size_t>& removed_master, const std::vector<size_t>& order,
                 const std::vector<ImageView<const uint32_t>>& maps,
                 const std::vector<FlagType>& types, Objects& out);

}  // namespace celeris::extract
