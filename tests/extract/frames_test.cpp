// A stream of frames (extract_files): each frame's catalog and check images byte-identical to
// the one-frame run's, output names from {stem} / {index}, a failing frame reported while the
// others go on, colliding names refused before anything runs. On a CUDA device the stream with
// the GPU front end is checked against the CPU one-frame runs (GpuFrontEnd prefix: label gpu).
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

  Settings settings(const std::string& catalog, bool checks, Backend device) const {
    Overrides o = {{"CATALOG_NAME", catalog}, {"CATALOG_TYPE", "ASCII_HEAD"}};
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

TEST_F(Frames, GpuFrontEndStreamEqualsCpuOneFrameRuns) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_stream_matches(Backend::Cuda);
  expect_stream_matches(Backend::Cuda, 3);
}
