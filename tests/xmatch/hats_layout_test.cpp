// The HATS directory layout (open_hats, src/xmatch/hats_layout.cpp): partitions in sky order,
// their files in the layouts LSDB, hats-import and hipscat write, and every malformed catalog
// refused with a message naming the problem. No Parquet is read, so these run in every build
// (the sanitizer build included); the Parquet reading is tested by xmatch.hats.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "celeris/error.hpp"
#include "celeris/xmatch_hats.hpp"

namespace fs = std::filesystem;
using celeris::xmatch::HatsCatalog;
using celeris::xmatch::open_hats;

namespace {

class HatsLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("celeris_hats_layout_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const fs::path& rel, const std::string& text) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  void partition_file(int order, long pix, const std::string& root = "dataset") const {
    write(fs::path(root) / ("Norder=" + std::to_string(order)) /
              ("Dir=" + std::to_string(pix / 10000 * 10000)) /
              ("Npix=" + std::to_string(pix) + ".parquet"),
          "x");
  }
  // A three-partition catalog: orders 0, 1 and 2, listed out of sky order.
  void good_catalog() const {
    write("hats.properties",
          "#HATS catalog\ndataproduct_type=object\nhats_col_ra=RA_deg\nhats_col_dec=DEC_deg\n");
    write("partition_info.csv", "Norder,Npix\n2,10\n0,5\n1,1\n");
    partition_file(2, 10);
    partition_file(0, 5);
    partition_file(1, 1);
  }
  std::string error_of() const {
    try {
      open_hats(dir_.string());
    } catch (const celeris::Error& e) {
      return e.what();
    }
    return "no error";
  }
  fs::path dir_;
};

TEST_F(HatsLayout, PartitionsInSkyOrderWithTheirFiles) {
  good_catalog();
  ASSERT_TRUE(celeris::xmatch::is_hats_catalog(dir_.string()));
  const HatsCatalog cat = open_hats(dir_.string());
  EXPECT_EQ(cat.ra, "RA_deg");
  EXPECT_EQ(cat.dec, "DEC_deg");
  ASSERT_EQ(cat.partitions.size(), 3u);
  // Sky order: order-29 start pixel, 1 << 56 = order-1 pixel 1, 10 << 54 = order-2 pixel 10
  // (inside order-0 pixel 0), 5 << 58 = order-0 pixel 5.
  EXPECT_EQ(cat.partitions[0].order, 1);
  EXPECT_EQ(cat.partitions[0].pix, 1);
  EXPECT_EQ(cat.partitions[1].order, 2);
  EXPECT_EQ(cat.partitions[1].pix, 10);
  EXPECT_EQ(cat.partitions[2].order, 0);
  EXPECT_EQ(cat.partitions[2].pix, 5);
  ASSERT_EQ(cat.partitions[1].files.size(), 1u);
  EXPECT_EQ(fs::path(cat.partitions[1].files[0]),
            dir_ / "dataset" / "Norder=2" / "Dir=0" / "Npix=10.parquet");
  const auto [ra, dec] = celeris::xmatch::hats_radec_columns(dir_.string());
  EXPECT_EQ(ra, "RA_deg");
  EXPECT_EQ(dec, "DEC_deg");
}

TEST_F(HatsLayout, DirectoryPartitionsHipscatLayoutAndCollections) {
  write("properties", "dataproduct_type=source\n");
  write("partition_info.csv", "Norder,Dir,Npix,num_rows\n3,0,700,5\n6,10000,12345,7\n");
  write("dataset/Norder=3/Dir=0/Npix=700/b.parquet", "x");
  write("dataset/Norder=3/Dir=0/Npix=700/a.parquet", "x");
  write("dataset/Norder=3/Dir=0/Npix=700/notes.txt", "x");
  partition_file(6, 12345, ".");  // hipscat: Norder=K/ at the top, no dataset/
  const HatsCatalog cat = open_hats(dir_.string());
  ASSERT_EQ(cat.partitions.size(), 2u);
  // Sky order: 12345 << 46 (order 6) comes before 700 << 52 (order 3).
  ASSERT_EQ(cat.partitions[0].files.size(), 1u);
  EXPECT_EQ(fs::path(cat.partitions[0].files[0]),
            dir_ / "Norder=6" / "Dir=10000" / "Npix=12345.parquet");
  ASSERT_EQ(cat.partitions[1].files.size(), 2u);  // name order, .parquet only
  EXPECT_EQ(fs::path(cat.partitions[1].files[0]).filename(), "a.parquet");
  EXPECT_EQ(fs::path(cat.partitions[1].files[1]).filename(), "b.parquet");
  EXPECT_TRUE(cat.ra.empty());

  // A collection stands for its primary catalog; catalog_info.json (hipscat) names the columns.
  const fs::path coll = dir_ / "coll";
  fs::create_directories(coll / "main");
  std::ofstream(coll / "collection.properties") << "hats_primary_table_url=main\n";
  std::ofstream(coll / "main" / "catalog_info.json")
      << "{\n  \"catalog_type\": \"object\",\n  \"ra_column\": \"ra\",\n  \"dec_column\": "
         "\"dec\"\n}\n";
  std::ofstream(coll / "main" / "partition_info.csv") << "Norder,Npix\n0,0\n";
  fs::create_directories(coll / "main" / "dataset" / "Norder=0" / "Dir=0");
  std::ofstream(coll / "main" / "dataset" / "Norder=0" / "Dir=0" / "Npix=0.parquet") << "x";
  const HatsCatalog c2 = open_hats(coll.string());
  EXPECT_EQ(fs::path(c2.path), coll / "main");
  EXPECT_EQ(c2.ra, "ra");
  EXPECT_EQ(c2.partitions.size(), 1u);
}

TEST_F(HatsLayout, MalformedCatalogsAreRefusedNamingTheProblem) {
  good_catalog();
  write("partition_info.csv", "Norder,Npix\n2,10\n0,5\n1,1\n2,4\n");  // 2/4 lies in 1/1
  EXPECT_NE(error_of().find("overlap"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n0,5\n0,5\n");
  EXPECT_NE(error_of().find("overlap"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n0,12\n");
  EXPECT_NE(error_of().find("Npix 12 outside order 0"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n30,1\n");
  EXPECT_NE(error_of().find("outside 0..29"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n0,5,7\n");
  EXPECT_NE(error_of().find("3 fields"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n0,5x\n");
  EXPECT_NE(error_of().find("not an integer"), std::string::npos) << error_of();
  write("partition_info.csv", "Order,Npix\n0,5\n");
  EXPECT_NE(error_of().find("no Norder column"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n");
  EXPECT_NE(error_of().find("no partitions"), std::string::npos) << error_of();
  write("partition_info.csv", "Norder,Npix\n0,6\n");
  EXPECT_NE(error_of().find("Npix=6.parquet: partition listed in partition_info.csv not found"),
            std::string::npos)
      << error_of();
  fs::remove(dir_ / "partition_info.csv");
  EXPECT_NE(error_of().find("without partition_info.csv"), std::string::npos) << error_of();
  good_catalog();
  write("hats.properties", "dataproduct_type=margin\n");
  EXPECT_NE(error_of().find("a HATS margin catalog"), std::string::npos) << error_of();
  EXPECT_FALSE(celeris::xmatch::is_hats_catalog((dir_ / "hats.properties").string()));
  EXPECT_FALSE(celeris::xmatch::is_hats_catalog((dir_ / "dataset").string()));
}

TEST_F(HatsLayout, WithoutParquetReadingIsRefusedSayingHowToEnableIt) {
  if (celeris::xmatch::parquet_available()) GTEST_SKIP() << "built with CELERIS_PARQUET";
  good_catalog();
  try {
    celeris::xmatch::read_hats_table(dir_.string());
    FAIL() << "no error";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("-DCELERIS_PARQUET=ON"), std::string::npos) << e.what();
  }
}

}  // namespace

// Margin caches (find_hats_margin): found beside a catalog as <catalog>_margin, or named by a
// collection's default_margin (else the first of all_margins); an absent margin file is recorded
// for the rank that needs it, not thrown at open; a directory that is not a margin cache, or one
// without a numeric threshold, is refused.
class HatsMargin : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("celeris_hats_margin_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& rel, const std::string& text) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  void margin(const fs::path& root, const std::string& threshold_line) const {
    write(root / "hats.properties", "dataproduct_type=margin\n" + threshold_line);
    write(root / "partition_info.csv", "Norder,Npix\n1,13\n0,2\n");
    write(root / "dataset/Norder=0/Dir=0/Npix=2.parquet", "x");  // Npix=13 absent
  }
  std::string error_of(const fs::path& catalog) const {
    try {
      celeris::xmatch::find_hats_margin(catalog.string());
    } catch (const celeris::Error& e) {
      return e.what();
    }
    return "no error";
  }
  fs::path dir_;
};

TEST_F(HatsMargin, BesideTheCatalog) {
  write("cat/hats.properties", "dataproduct_type=object\n");
  EXPECT_FALSE(celeris::xmatch::find_hats_margin((dir_ / "cat").string()).has_value());
  margin("cat_margin", "hats_margin_threshold=10.5\n");
  const auto m = celeris::xmatch::find_hats_margin((dir_ / "cat").string());
  ASSERT_TRUE(m.has_value());
  EXPECT_DOUBLE_EQ(m->threshold_arcsec, 10.5);
  ASSERT_EQ(m->partitions.size(), 2u);  // sky order: (0, 2) before (1, 13)
  EXPECT_EQ(m->partitions[0].order, 0);
  EXPECT_EQ(m->partitions[0].pix, 2);
  EXPECT_EQ(m->partitions[0].files.size(), 1u);
  EXPECT_TRUE(m->missing[0].empty());
  EXPECT_EQ(m->partitions[1].pix, 13);
  EXPECT_TRUE(m->partitions[1].files.empty());
  EXPECT_NE(m->missing[1].find("Npix=13"), std::string::npos) << m->missing[1];
  // "cat/" names the same catalog.
  EXPECT_TRUE(celeris::xmatch::find_hats_margin((dir_ / "cat").string() + "/").has_value());
}

TEST_F(HatsMargin, NamedByACollection) {
  write("coll/collection.properties", "hats_primary_table_url=main\nall_margins=m1 m2\n");
  margin("coll/m1", "hats_margin_threshold=5\n");
  margin("coll/m2", "hats_margin_threshold=20\n");
  auto m = celeris::xmatch::find_hats_margin((dir_ / "coll").string());
  ASSERT_TRUE(m.has_value());
  EXPECT_DOUBLE_EQ(m->threshold_arcsec, 5);  // the first of all_margins
  write("coll/collection.properties",
        "hats_primary_table_url=main\nall_margins=m1 m2\ndefault_margin=m2\n");
  m = celeris::xmatch::find_hats_margin((dir_ / "coll").string());
  ASSERT_TRUE(m.has_value());
  EXPECT_DOUBLE_EQ(m->threshold_arcsec, 20);
  write("plain/collection.properties", "hats_primary_table_url=main\n");
  EXPECT_FALSE(celeris::xmatch::find_hats_margin((dir_ / "plain").string()).has_value());
}

TEST_F(HatsMargin, BadMarginsRefused) {
  margin("a_margin", "");
  EXPECT_NE(error_of(dir_ / "a").find("without a numeric hats_margin_threshold"),
            std::string::npos);
  margin("b_margin", "hats_margin_threshold=ten\n");
  EXPECT_NE(error_of(dir_ / "b").find("hats_margin_threshold"), std::string::npos);
  write("c_margin/hats.properties", "dataproduct_type=object\nhats_margin_threshold=10\n");
  EXPECT_NE(error_of(dir_ / "c").find("dataproduct_type=margin"), std::string::npos);
}
