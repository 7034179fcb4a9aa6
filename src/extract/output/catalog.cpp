// Catalog files in SExtractor's formats: ASCII, ASCII_HEAD, FITS_1.0 and FITS_LDAC.
#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"

namespace celeris::extract {

void write_catalog(const std::string& path, CatalogType type, const Table& table,
                   const FitsHeader& image_header, const std::vector<std::string>& extra_cards,
                   const FitsRows* rows) {
  switch (type) {
    case CatalogType::None:
      return;
    case CatalogType::Ascii:
    case CatalogType::AsciiHead:
      write_ascii_table(path, table, type == CatalogType::AsciiHead);
      return;
    case CatalogType::Fits10:
    case CatalogType::FitsLdac: {
      FitsTableOptions opt;
      opt.ldac = type == CatalogType::FitsLdac;
      opt.extname = "OBJECTS";
      opt.image_header = image_header;
      opt.extra_cards = extra_cards;
      opt.rows = rows;
      write_fits_table(path, table, opt);
      return;
    }
  }
  throw Error("unknown catalog type");
}

}  // namespace celeris::extract
