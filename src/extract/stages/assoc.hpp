// ASSOC: each object associated with the entries of the ASSOC list (assoc_list.hpp) within
// ASSOC_RADIUS pixels, as SExtractor's assoc.c does it: NUMBER_ASSOC (how many entries are in
// reach) and VECTOR_ASSOC (their ASSOC_DATA columns combined by ASSOC_TYPE), and the catalog
// rows kept by ASSOCSELEC_TYPE.
#pragma once

#include <cstdint>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/table.hpp"
#include "celeris/wcs.hpp"
#include "extract/stages/assoc_list.hpp"

namespace celeris::extract {

// One frame's view of the list: positions in 1-based pixels (converted from RA, Dec with
// ASSOCCOORD_TYPE WORLD), entries in SExtractor's order, i.e. sorted by y with equal y in file
// order (its qsort is glibc's merge sort, which keeps that order). That order decides which
// entry wins FIRST and the ties of NEAREST, MIN and MAX. The search visits only the entries
// whose y is within the radius (a binary search in that order), where SExtractor starts from a
// per-row table: the same entries, in the same order.
class AssocIndex {
 public:
  // `wcs` converts the list's positions (ASSOCCOORD_TYPE WORLD, RA and Dec J2000 in degrees);
  // a position that does not map onto the projection matches nothing, as in SExtractor.
  AssocIndex(const AssocList& list, double radius, const Wcs* wcs);

  // SExtractor's do_assoc for an object at (x, y), 1-based pixels, in an image `height` rows
  // tall: the number of entries strictly within the radius (0 also when y rounds to a row
  // outside the image, and for MEAN / MAG_MEAN when the weights sum below 1e-30), and `out`
  // (`out_size` elements, zeroed first, at least ndata) filled as ASSOC_TYPE says.
  int match(double x, double y, int height, double* out, int out_size) const;

 private:
  const AssocList* list_;
  double radius_;
  std::vector<size_t> order_;  // list entries sorted by y (stable)
  std::vector<double> x_, y_;  // positions in that order, 1-based pixels
};

// NUMBER_ASSOC and VECTOR_ASSOC (`vector_size` per object) of every object, from its 1-based
// barycentre (Objects::x + 1, Objects::y + 1), into objects.assoc_number / objects.assoc.
void associate(Objects& objects, const AssocIndex& index, int height, int vector_size);

// ASSOCSELEC_TYPE: which rows are written (MATCHED: NUMBER_ASSOC > 0; -MATCHED: 0).
std::vector<uint8_t> assoc_selection(const Objects& objects, AssocSelect select);

// The rows of `table` whose `keep` is set, in order; NUMBER, when present, renumbered 1, 2, ...
// as SExtractor numbers only the objects it writes.
void keep_rows(Table& table, const std::vector<uint8_t>& keep);

}  // namespace celeris::extract
