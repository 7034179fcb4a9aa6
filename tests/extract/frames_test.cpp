// A stream of frames (extract_files): each frame's catalog and check images byte-identical to
// the one-frame run's, output names from {stem} / {index}, a failing frame reported while the
// others go on, colliding names refused before anything runs; a multi-extension file in the
// stream gives the catalog (ASCII, FITS_LDAC) and check images of its run alone. On a CUDA device
// the stream with the GPU front end is checked against the CPU one-frame runs (GpuFrontEnd prefix:
// label gpu).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/fits.hpp"
#include "celeris/simulate.hpp"
#include "celeris/table.hpp"
#include "extract/output/check_image_extensions.hpp"

namespace fs = std::filesystem;
using namespace celeris;
using namespace celeris::extract;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Frames : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("celeris_frames_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Three frames of different sizes and crowding, so that buffers are reused and regrown.
    const int sizes[][3] = {{300, 200, 150}, {512, 512, 400}, {257, 401, 60}};
    for (int k = 0; k < 3; ++k) {
      sim::ImageParams p;
      p.width = sizes[k][0];
      p.height = sizes[k][1];
      p.n_stars = sizes[k][2];
      p.seed = 11 + static_cast<uint64_t>(k);
      p.n_nan_patches = k == 2 ? 2 : 0;
      const std::string path = (dir_ / ("frame" + std::to_string(k) + ".fits")).string();
      write_fits_image(path, sim::simulate_image(p).pixels.view(), {}, -32);
      images_.push_back(path);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  Settings settings(const std::string& catalog, bool checks, Backend device,
                    const std::string& type = "ASCII_HEAD") const {
    Overrides o = {{"CATALOG_NAME", catalog}, {"CATALOG_TYPE", type}};
    if (checks) {
      o.emplace_back("CHECKIMAGE_TYPE", "SEGMENTATION,-BACKGROUND,APERTURES");
      const std::string stem = (dir_ / "{stem}").string();
      o.emplace_back("CHECKIMAGE_NAME",
                     stem + ".seg.fits," + stem + ".sub.fits," + stem + ".ap.fits");
    }
    Settings s = load_settings("", o);
    s.config.device = device;
    return s;
  }

  // One-frame runs on the CPU: the reference for every stream.
  std::vector<std::string> reference_outputs(bool checks) {
    std::vector<std::string> out;
    for (size_t k = 0; k < images_.size(); ++k) {
      const std::string ref = (dir_ / ("ref" + std::to_string(k))).string();
      Settings s = settings(ref + ".cat", checks, Backend::Cpu);
      if (checks) s.check_names = {ref + ".seg.fits", ref + ".sub.fits", ref + ".ap.fits"};
      extract_file(images_[k], s);
      out.push_back(ref);
    }
    return out;
  }

  // The stream, then each of its outputs against the reference.
  void expect_stream_matches(Backend device, size_t back_workers = 0) {
    const std::vector<std::string> refs = reference_outputs(true);
    const Settings s = settings((dir_ / "{stem}.cat").string(), true, device);
    std::vector<size_t> order;
    const FramesSummary sum = extract_files(
        images_, s, {},
        [&](const FrameReport& r) {
          EXPECT_EQ(r.error, "") << r.path;
          order.push_back(r.index);
        },
        back_workers);
    EXPECT_EQ(sum.frames, 3u);
    EXPECT_EQ(sum.failed, 0u);
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2}));
    // The time accounting names every step, and the frames' stages summed.
    auto seconds = [](const std::vector<std::pair<std::string, double>>& list,
                      const std::string& name) {
      for (const auto& [n, s] : list)
        if (n == name) return s;
      return -1.0;
    };
    for (const char* step : {"read", "front stages", "back stages", "write"})
      EXPECT_GT(seconds(sum.step_seconds, step), 0.0) << step;
    EXPECT_EQ(seconds(sum.step_seconds, "page-lock") >= 0, device == Backend::Cuda);
    for (const char* stage : {"deblend", "clean", "measure"})
      EXPECT_GT(seconds(sum.stage_seconds, stage), 0.0) << stage;
    EXPECT_LE(seconds(sum.step_seconds, "back stages"),
              sum.seconds * static_cast<double>(std::max<size_t>(back_workers, 3)) + 1e-3);
    for (size_t k = 0; k < images_.size(); ++k) {
      const std::string stem = (dir_ / ("frame" + std::to_string(k))).string();
      const std::string ref_catalog = slurp(refs[k] + ".cat");
      EXPECT_GT(ref_catalog.size(), 1000u) << k;
      EXPECT_EQ(ref_catalog, slurp(stem + ".cat")) << k;
      for (const char* suffix : {".seg.fits", ".sub.fits", ".ap.fits"})
        EXPECT_EQ(slurp(refs[k] + suffix), slurp(stem + suffix)) << k << suffix;
    }
  }

  fs::path dir_;
  std::vector<std::string> images_;
};

}  // namespace

TEST(FrameNames, StemAndIndex) {
  EXPECT_EQ(frame_output_name("{stem}.cat", "/data/n1/r0042.fits.fz[1]", 0, 1), "r0042.cat");
  EXPECT_EQ(frame_output_name("{stem}.cat", "a.b.fits.gz", 0, 1), "a.b.cat");
  EXPECT_EQ(frame_output_name("out/{index}_{stem}", "x.fit", 6, 120), "out/007_x");
  EXPECT_EQ(frame_output_name("plain.cat", "x.fits", 3, 9), "plain.cat");
  EXPECT_EQ(frame_output_name("{stem}{stem}", "x", 0, 1), "xx");
}

TEST_F(Frames, ImageListExpands) {
  const fs::path list = dir_ / "list.txt";
  std::ofstream(list) << "# night 1\n  a.fits \n\nb.fits[1]\n";
  EXPECT_EQ(expand_image_list({"z.fits", "@" + list.string(), "y.fits"}),
            (std::vector<std::string>{"z.fits", "a.fits", "b.fits[1]", "y.fits"}));
  EXPECT_THROW(expand_image_list({"@" + (dir_ / "none.txt").string()}), Error);
}

TEST_F(Frames, StreamOnCpuEqualsOneFrameRuns) {
  expect_stream_matches(Backend::Cpu);
}

// Three frames in the back stages at once: still written in order, each its own.
TEST_F(Frames, StreamWithSeveralBackWorkersEqualsOneFrameRuns) {
  expect_stream_matches(Backend::Cpu, 3);
}

TEST_F(Frames, FailingFrameIsReportedAndTheOthersGoOn) {
  std::vector<std::string> paths = {images_[0], (dir_ / "missing.fits").string(), images_[2]};
  std::vector<FrameReport> reports;
  const FramesSummary sum =
      extract_files(paths, settings((dir_ / "{index}.cat").string(), false, Backend::Cpu), {},
                    [&](const FrameReport& r) { reports.push_back(r); });
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(sum.failed, 1u);
  EXPECT_EQ(reports[0].error, "");
  EXPECT_NE(reports[1].error.find("missing.fits"), std::string::npos) << reports[1].error;
  EXPECT_EQ(reports[2].error, "");
  EXPECT_TRUE(fs::exists(dir_ / "1.cat"));
  EXPECT_FALSE(fs::exists(dir_ / "2.cat"));
  EXPECT_TRUE(fs::exists(dir_ / "3.cat"));
}

TEST_F(Frames, NamesMustBePerFrameAndDistinct) {
  EXPECT_THROW(
      extract_files(images_, settings((dir_ / "one.cat").string(), false, Backend::Cpu), {}, {}),
      Error);
  std::vector<std::string> twice = {images_[0], images_[0]};
  EXPECT_THROW(
      extract_files(twice, settings((dir_ / "{stem}.cat").string(), false, Backend::Cpu), {}, {}),
      Error);
  EXPECT_FALSE(fs::exists(dir_ / "frame0.cat"));  // refused before anything ran
}

// The column names and values of the table at HDU `hdu` (CFITSIO's 0-based [hdu]) of `path`.
std::vector<std::pair<std::string, std::vector<double>>> table_values(const std::string& path,
                                                                      int hdu) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const Column& c : read_fits_table(path + "[" + std::to_string(hdu) + "]").columns)
    out.emplace_back(c.name, c.values);
  return out;
}

// Frames 0 and 2 as the two image extensions of mef.fits (an empty primary HDU first, as
// SExtractor's own multi-extension outputs).
std::string write_mef(const fs::path& dir, const std::vector<std::string>& images) {
  const std::string mef = (dir / "mef.fits").string();
  CheckImageFileWriter w(mef, 2, -32);
  for (int k : {0, 2}) w.append(read_fits_image(images[k]).pixels.view(), {});
  w.commit();
  return mef;
}

// A multi-extension file named without an HDU, between frames: extracted whole, its catalog
// (every extension's rows; FITS_LDAC: one LDAC_IMHEAD / LDAC_OBJECTS pair per extension) and
// check images (an extension each) byte-identical to its run alone, the frames' to theirs.
TEST_F(Frames, MultiExtensionFileInStreamEqualsItsRunAlone) {
  const std::string mef = write_mef(dir_, images_);
  for (const std::string type : {"ASCII_HEAD", "FITS_LDAC"}) {
    const std::string ref = (dir_ / ("alone_" + type)).string();
    Settings alone = settings(ref + ".cat", true, Backend::Cpu, type);
    alone.check_names = {ref + ".seg.fits", ref + ".sub.fits", ref + ".ap.fits"};
    const FileRunResult r = extract_file(mef, alone);
    EXPECT_EQ(r.extensions, 2);
    const std::string frame_ref = (dir_ / ("alone1_" + type)).string();
    Settings one = settings(frame_ref + ".cat", false, Backend::Cpu, type);
    extract_file(images_[1], one);

    const std::vector<std::string> paths = {images_[1], mef, images_[0]};
    const Settings s =
        settings((dir_ / ("{stem}_" + type + ".cat")).string(), true, Backend::Cpu, type);
    std::vector<FrameReport> reports;
    const FramesSummary sum = extract_files(
        paths, s, {}, [&](const FrameReport& rep) { reports.push_back(rep); }, 2);
    ASSERT_EQ(reports.size(), 3u);
    EXPECT_EQ(sum.failed, 0u);
    for (const auto& rep : reports) EXPECT_EQ(rep.error, "") << rep.path;
    EXPECT_EQ(reports[1].result.extensions, 2);
    EXPECT_EQ(reports[1].result.catalog.rows, r.catalog.rows);
    EXPECT_GT(r.catalog.rows, 100u);
    const std::string got = (dir_ / ("mef_" + type)).string();
    const std::string frame_got = (dir_ / ("frame1_" + type)).string();
    if (type == "ASCII_HEAD") {
      EXPECT_TRUE(slurp(ref + ".cat") == slurp(got + ".cat"));
      EXPECT_TRUE(slurp(frame_ref + ".cat") == slurp(frame_got + ".cat"));
    } else {
      // The primary HDU, then an LDAC_IMHEAD / LDAC_OBJECTS pair per extension (the frame: one
      // pair), the objects the same; the headers' extraction time cards differ by run.
      for (int hdu : {2, 4})
        EXPECT_TRUE(table_values(ref + ".cat", hdu) == table_values(got + ".cat", hdu)) << hdu;
      EXPECT_GT(read_fits_table(got + ".cat[2]").rows, 10u);
      EXPECT_GT(read_fits_table(got + ".cat[4]").rows, 10u);
      EXPECT_THROW(read_fits_table(got + ".cat[5]"), Error);
      EXPECT_TRUE(table_values(frame_ref + ".cat", 2) == table_values(frame_got + ".cat", 2));
    }
    for (const char* suffix : {".seg.fits", ".sub.fits", ".ap.fits"})
      EXPECT_TRUE(slurp(ref + suffix) == slurp((dir_ / "mef").string() + suffix)) << type << suffix;
  }
}

TEST_F(Frames, GpuFrontEndStreamEqualsCpuOneFrameRuns) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_stream_matches(Backend::Cuda);
  expect_stream_matches(Backend::Cuda, 3);
}
