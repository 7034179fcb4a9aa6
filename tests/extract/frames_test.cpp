// A stream of frames (extract_files): each frame's catalog and check images byte-identical to
// the one-frame run's, output names from {stem} / {index}, a failing frame reported while the
// others go on, colliding names refused before anything runs; a multi-extension file in the
// stream gives the catalog (ASCII, FITS_LDAC) and check images of its run alone. Several readers
// (extract_frames' StreamShape): frames of different sizes and BITPIX (scaled integers with
// BLANK among them), failing frames among them, lists longer than the read-ahead, still each
// frame's one-frame catalog, in order. The pool of page-locked buffers the readers read into
// (PinnedFramePool): its slots bound the frames read ahead. On a CUDA device the stream with the
// GPU front end is checked against the CPU one-frame runs, and the pool's buffers against the
// driver (Gpu prefix: skipped without a device).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/fits.hpp"
#include "celeris/simulate.hpp"
#include "celeris/table.hpp"
#include "core/cuda/pinned_buffer_pool.hpp"
#include "core/fits_bytes.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/output/check_image_extensions.hpp"
#include "extract/run_frames.hpp"

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
    EXPECT_EQ(seconds(sum.step_seconds, "page-locked buffers (allocated once)") >= 0,
              device == Backend::Cuda);
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

  // Six frames of other sizes and BITPIX (below).
  void expect_mixed_stream_matches(Backend device);

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

namespace {

// Each frame's weight map (MAP_WEIGHT, its size: a gradient with a bad rectangle and a bad
// first column) as <dir>/frame<k>.weight.fits.
void write_weight_maps(const fs::path& dir, const std::vector<std::string>& images) {
  for (size_t k = 0; k < images.size(); ++k) {
    const FitsImage im = read_fits_image(images[k]);
    const int64_t w = im.pixels.width(), h = im.pixels.height();
    Image<float> map(w, h);
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const bool bad = x == 0 || (x > w / 3 && x < w / 3 + 20 && y > h / 4 && y < h / 2);
        map(x, y) = bad ? 0.0f : 0.5f + float(x) / float(w) + float(k) * 0.1f;
      }
    write_fits_image((dir / ("frame" + std::to_string(k) + ".weight.fits")).string(), map.view(),
                     {}, -32);
  }
}

Settings weighted_settings(const std::string& catalog, const std::string& weight_image,
                           Backend device) {
  Settings s = load_settings("", {{"CATALOG_NAME", catalog},
                                  {"CATALOG_TYPE", "ASCII_HEAD"},
                                  {"WEIGHT_TYPE", "MAP_WEIGHT"},
                                  {"WEIGHT_IMAGE", weight_image}});
  s.config.device = device;
  return s;
}

// Weight maps in a stream: WEIGHT_IMAGE with {stem} names each frame's own map; every catalog
// is the frame's one-frame CPU run with that map, on `device`.
void expect_weighted_stream_matches(const fs::path& dir, const std::vector<std::string>& images,
                                    Backend device) {
  write_weight_maps(dir, images);
  const Settings s = weighted_settings((dir / "{stem}.cat").string(),
                                       (dir / "{stem}.weight.fits").string(), device);
  size_t reported = 0;
  const FramesSummary sum = extract_files(images, s, {}, [&](const FrameReport& r) {
    EXPECT_EQ(r.error, "") << r.path;
    ++reported;
  });
  EXPECT_EQ(sum.failed, 0u);
  EXPECT_EQ(reported, images.size());
  for (size_t k = 0; k < images.size(); ++k) {
    const std::string stem = (dir / ("frame" + std::to_string(k))).string();
    extract_file(images[k],
                 weighted_settings(stem + ".ref.cat", stem + ".weight.fits", Backend::Cpu));
    const std::string ref = slurp(stem + ".ref.cat");
    EXPECT_GT(ref.size(), 1000u) << k;
    EXPECT_EQ(ref, slurp(stem + ".cat")) << k;
  }
}

}  // namespace

TEST_F(Frames, WeightMapsPerFrameEqualOneFrameRuns) {
  expect_weighted_stream_matches(dir_, images_, Backend::Cpu);
}

TEST_F(Frames, GpuWeightMapsPerFrameEqualCpuOneFrameRuns) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_weighted_stream_matches(dir_, images_, Backend::Cuda);
}

// A WEIGHT_IMAGE without {stem} or {index} is every frame's map: the frame of its size is
// extracted with it, the others are reported (the sizes differ) and the stream goes on.
TEST_F(Frames, OneWeightMapServesEveryFrame) {
  write_weight_maps(dir_, images_);
  const std::string map = (dir_ / "frame0.weight.fits").string();
  std::vector<std::string> errors(images_.size());
  const FramesSummary sum =
      extract_files(images_, weighted_settings((dir_ / "{stem}.cat").string(), map, Backend::Cpu),
                    {}, [&](const FrameReport& r) { errors[r.index] = r.error; });
  EXPECT_EQ(sum.failed, 2u);
  EXPECT_EQ(errors[0], "");
  for (size_t k : {1, 2}) EXPECT_NE(errors[k].find("must have the same size"), std::string::npos);
  const std::string ref = (dir_ / "ref0.cat").string();
  extract_file(images_[0], weighted_settings(ref, map, Backend::Cpu));
  EXPECT_EQ(slurp(ref), slurp(dir_ / "frame0.cat"));
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

namespace {

// The simulated frame `k` (its own size, crowding and seed) stored with `bitpix`: -32 and -64
// as floats; 16 as BZERO 32768 offset integers, 32 scaled by BSCALE 0.001, both with BLANK for
// the NaN patches. Written byte by byte (big-endian), as a camera would.
std::string write_frame(const fs::path& path, int w, int h, int stars, uint64_t seed, int bitpix) {
  sim::ImageParams p;
  p.width = w;
  p.height = h;
  p.n_stars = stars;
  p.seed = seed;
  p.n_nan_patches = 1;
  const Image<float> im = sim::simulate_image(p).pixels;
  std::vector<std::string> cards = {
      test::card("SIMPLE", "T"), test::card("BITPIX", std::to_string(bitpix)),
      test::card("NAXIS", "2"), test::card("NAXIS1", std::to_string(w)),
      test::card("NAXIS2", std::to_string(h))};
  const double bscale = bitpix == 32 ? 0.001 : 1.0, bzero = bitpix == 16 ? 32768.0 : 0.0;
  const long long blank = bitpix == 16 ? -32768 : -2147483647LL - 1;
  if (bitpix > 0) {
    cards.push_back(test::card("BSCALE", bitpix == 32 ? "0.001" : "1.0"));
    cards.push_back(test::card("BZERO", bitpix == 16 ? "32768.0" : "0.0"));
    cards.push_back(test::card("BLANK", std::to_string(blank)));
  }
  std::string data;
  auto put = [&](uint64_t v, int bytes) {
    for (int b = bytes - 1; b >= 0; --b) data += static_cast<char>((v >> (8 * b)) & 0xFF);
  };
  for (int64_t i = 0; i < im.size(); ++i) {
    const float v = im.data()[i];
    if (bitpix == -32) {
      put(std::bit_cast<uint32_t>(v), 4);
    } else if (bitpix == -64) {
      put(std::bit_cast<uint64_t>(static_cast<double>(v)), 8);
    } else {
      const double lo = bitpix == 16 ? -32767 : -2147483647.0,
                   hi = bitpix == 16 ? 32767 : 2147483647.0;
      const long long q =
          std::isnan(v)
              ? blank
              : static_cast<long long>(std::clamp(std::round((v - bzero) / bscale), lo, hi));
      put(static_cast<uint64_t>(q), bitpix / 8);
    }
  }
  test::write_bytes(path, test::header(cards) + test::padded(data));
  return path.string();
}

}  // namespace

// Frames of different sizes and BITPIX in one stream on `device`, read by three readers with
// two slots (readers wait for slots; the frames arrive out of order): each catalog and check
// image the frame's one-frame CPU run's, the frames in order.
namespace {
void Frames::expect_mixed_stream_matches(Backend device) {
  std::vector<std::string> paths;
  const int spec[][4] = {{300, 200, 120, -32}, {512, 384, 300, 16},  {257, 401, 80, 32},
                         {200, 260, 90, -64},  {512, 512, 200, -32}, {160, 120, 40, 16}};
  for (int k = 0; k < 6; ++k)
    paths.push_back(write_frame(dir_ / ("mixed" + std::to_string(k) + ".fits"), spec[k][0],
                                spec[k][1], spec[k][2], 40 + static_cast<uint64_t>(k), spec[k][3]));
  std::vector<std::string> refs;
  for (size_t k = 0; k < paths.size(); ++k) {
    refs.push_back((dir_ / ("mixed_ref" + std::to_string(k))).string());
    Settings one = settings(refs[k] + ".cat", true, Backend::Cpu);
    one.check_names = {refs[k] + ".seg.fits", refs[k] + ".sub.fits", refs[k] + ".ap.fits"};
    extract_file(paths[k], one);
  }
  for (const StreamShape shape : {StreamShape{2, 3, 2}, StreamShape{1, 2, 5}}) {
    const Settings s = settings((dir_ / "{stem}.cat").string(), true, device);
    std::vector<size_t> order;
    const FramesSummary sum = extract_frames(
        paths, s, {},
        [&](const FrameReport& r) {
          EXPECT_EQ(r.error, "") << r.path;
          order.push_back(r.index);
        },
        shape);
    EXPECT_EQ(sum.failed, 0u);
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
    for (size_t k = 0; k < paths.size(); ++k) {
      const std::string& ref = refs[k];
      const std::string got = (dir_ / ("mixed" + std::to_string(k))).string();
      const std::string catalog = slurp(ref + ".cat");
      EXPECT_GT(catalog.size(), 1000u) << k;
      EXPECT_TRUE(catalog == slurp(got + ".cat")) << k;
      for (const char* suffix : {".seg.fits", ".sub.fits", ".ap.fits"})
        EXPECT_TRUE(slurp(ref + suffix) == slurp(got + suffix)) << k << suffix;
    }
  }
}

}  // namespace

TEST_F(Frames, MixedSizesAndBitpixWithSeveralReadersEqualOneFrameRuns) {
  expect_mixed_stream_matches(Backend::Cpu);
}

// With --device cuda the readers leave BITPIX -32 and 32 pixels as stored and the GPU swaps and
// scales them (BSCALE 0.001, BLANK); BITPIX 16 and -64 are converted on the host as before.
TEST_F(Frames, GpuStreamOfMixedSizesAndBitpixEqualsCpuOneFrameRuns) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_mixed_stream_matches(Backend::Cuda);
}

// Failing frames (missing, not FITS, a truncated file) among good ones read in parallel: each
// reported with its own error, in order, the others' catalogs their one-frame runs'.
TEST_F(Frames, FailingFramesAmongParallelReadersAreReportedAndTheOthersGoOn) {
  const std::string not_fits = (dir_ / "notes.fits").string();
  std::ofstream(not_fits) << "not a FITS file\n";
  const std::string truncated = (dir_ / "cut.fits").string();
  const std::string whole = slurp(images_[1]);
  test::write_bytes(truncated, whole.substr(0, 2880 + 4 * 512 * 100));  // 100 rows of 512
  const std::vector<std::string> paths = {
      images_[0], (dir_ / "missing.fits").string(), images_[2], not_fits, truncated, images_[1]};
  std::vector<FrameReport> reports;
  const FramesSummary sum = extract_frames(
      paths, settings((dir_ / "{index}.cat").string(), false, Backend::Cpu), {},
      [&](const FrameReport& r) { reports.push_back(r); }, StreamShape{2, 3, 3});
  ASSERT_EQ(reports.size(), 6u);
  EXPECT_EQ(sum.failed, 3u);
  for (size_t k = 0; k < 6; ++k) EXPECT_EQ(reports[k].index, k);
  EXPECT_NE(reports[1].error.find("missing.fits"), std::string::npos) << reports[1].error;
  EXPECT_NE(reports[3].error.find("notes.fits"), std::string::npos) << reports[3].error;
  EXPECT_NE(reports[4].error.find("cut.fits"), std::string::npos) << reports[4].error;
  for (size_t k : {0, 2, 5}) EXPECT_EQ(reports[k].error, "") << k;
  const std::vector<std::string> refs = reference_outputs(false);
  EXPECT_TRUE(slurp(refs[0] + ".cat") == slurp(dir_ / "1.cat"));
  EXPECT_TRUE(slurp(refs[2] + ".cat") == slurp(dir_ / "3.cat"));
  EXPECT_TRUE(slurp(refs[1] + ".cat") == slurp(dir_ / "6.cat"));
  for (const char* name : {"2.cat", "4.cat", "5.cat"}) EXPECT_FALSE(fs::exists(dir_ / name));
}

namespace {

// An @list of 14 frames (the three images again and again) through each stream shape: every
// frame once, in order, each its image's one-frame CPU catalog.
void expect_list_in_order(const fs::path& dir, const std::vector<std::string>& images,
                          const std::vector<std::string>& refs, const Settings& s,
                          std::initializer_list<StreamShape> shapes) {
  const fs::path list = dir / "night.txt";
  {
    std::ofstream out(list);
    for (int k = 0; k < 14; ++k) out << images[static_cast<size_t>(k % 3)] << "\n";
  }
  const std::vector<std::string> paths = expand_image_list({"@" + list.string()});
  ASSERT_EQ(paths.size(), 14u);
  for (const StreamShape shape : shapes) {
    std::vector<size_t> order;
    const FramesSummary sum = extract_frames(
        paths, s, {},
        [&](const FrameReport& r) {
          EXPECT_EQ(r.error, "") << r.path;
          order.push_back(r.index);
        },
        shape);
    EXPECT_EQ(sum.frames, 14u);
    EXPECT_EQ(sum.failed, 0u);
    ASSERT_EQ(order.size(), 14u);
    for (size_t k = 0; k < 14; ++k) {
      EXPECT_EQ(order[k], k);
      char name[16];
      std::snprintf(name, sizeof name, "%02zu.cat", k + 1);
      EXPECT_TRUE(slurp(refs[k % 3] + ".cat") == slurp(dir / name))
          << name << " fronts " << shape.fronts;
    }
  }
}

}  // namespace

// Slots fewer than the frames, fewer than the readers too; with one front and with several
// (frames through the front stages side by side, finishing out of order).
TEST_F(Frames, ListLongerThanTheReadAheadKeepsItsOrder) {
  const std::vector<std::string> refs = reference_outputs(false);
  expect_list_in_order(dir_, images_, refs,
                       settings((dir_ / "{index}.cat").string(), false, Backend::Cpu),
                       {StreamShape{2, 4, 1}, StreamShape{3, 2, 3}, StreamShape{2, 4, 1, 2},
                        StreamShape{3, 2, 3, 3}, StreamShape{1, 3, 4, 2}});
}

// With --device cuda: two fronts by default (two GPU contexts), three (one waits for a
// context), one; every catalog the CPU's one-frame run's.
TEST_F(Frames, GpuFrontsSideBySideKeepOrderAndEqualCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::string> refs = reference_outputs(false);
  expect_list_in_order(
      dir_, images_, refs, settings((dir_ / "{index}.cat").string(), false, Backend::Cuda),
      {StreamShape{}, StreamShape{2, 4, 2, 3}, StreamShape{3, 2, 1, 1}, StreamShape{1, 1, 1, 2}});
}

// With --device cuda a stream plans the device memory of its fronts' frames and of the images
// kept past them (pipeline.hpp GpuStreamLoad). Under a limit (Config::gpu_memory_bytes) that the
// 512 x 512 frame fits alone but not beside the images of one more, that frame waits until it
// is alone in flight and takes the GPU, the front end's idle buffers freed first; the smaller
// frames (at most 40% of its pixels) go on with the planned load. Under a limit it does not fit
// even alone, its detection runs in bands of rows; under one not even bands fit, it is extracted
// on the CPU with a warning naming the frame. Every catalog the
// CPU's one-frame run's, the three frames twice (the large one between small ones, its buffers
// grown again after they were freed).
TEST_F(Frames, GpuStreamRunsAFrameTooLargeForItsLoadAlone) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::string> refs = reference_outputs(false);
  Settings s = settings((dir_ / "{index}.cat").string(), false, Backend::Cuda);
  const int64_t alone = gpu::frame_device_bytes(512 * 512);
  const int64_t just_above =
      static_cast<int64_t>(static_cast<double>(alone) / gpu::kUsableShare) + 1;
  std::vector<std::string> six = images_;
  six.insert(six.end(), images_.begin(), images_.end());
  auto stream = [&](int64_t limit, StreamShape shape, const std::string& expected_on_cpu) -> bool {
    s.config.gpu_memory_bytes = limit;
    std::vector<FrameReport> reports;
    const FramesSummary sum = extract_frames(
        six, s, {}, [&](const FrameReport& r) { reports.push_back(r); }, shape);
    EXPECT_EQ(sum.failed, 0u);
    EXPECT_EQ(reports.size(), 6u);
    for (size_t k = 0; k < reports.size(); ++k) {
      int on_cpu = 0;
      for (const std::string& w : reports[k].result.warnings)
        if (w.find("the frame is extracted on the CPU") != std::string::npos) {
          ++on_cpu;
          EXPECT_NE(w.find(expected_on_cpu), std::string::npos) << w;
        }
      EXPECT_EQ(on_cpu, k % 3 == 1 && !expected_on_cpu.empty() ? 1 : 0) << k;
      EXPECT_EQ(reports[k].error, "") << k;
      EXPECT_TRUE(slurp(refs[k % 3] + ".cat") == slurp(dir_ / (std::to_string(k + 1) + ".cat")))
          << k << " fronts " << shape.fronts;
    }
    bool freed = false;
    for (const auto& [name, seconds] : sum.step_seconds)
      freed |= name.find("idle device buffers freed") != std::string::npos;
    return freed;
  };
  // One front and one back worker; two fronts and four back workers.
  EXPECT_TRUE(stream(just_above, StreamShape{1, 2, 1, 1}, ""));
  EXPECT_TRUE(stream(just_above, StreamShape{4, 2, 4, 2}, ""));
  // Just below what it needs alone: its detection in bands of rows on the GPU
  // (GpuFrontEnd.AFrameOverTheMemoryLimitIsDetectedInBands), no warning.
  EXPECT_FALSE(stream(static_cast<int64_t>(static_cast<double>(alone) / gpu::kUsableShare) - 1,
                      StreamShape{1, 2, 1, 1}, ""));
  // Below what even bands of the fewest rows need: on the CPU, the small frames still on the GPU.
  const int64_t banded = gpu::banded_frame_device_bytes(512 * 512, 512 * gpu::kMinBandRows);
  EXPECT_FALSE(stream(static_cast<int64_t>(static_cast<double>(banded) / gpu::kUsableShare) - 1,
                      StreamShape{1, 2, 1, 1}, "the frame would take up to"));
  // A limit the planned load fits: nothing freed, nothing on the CPU.
  EXPECT_FALSE(stream(0, StreamShape{4, 2, 4, 2}, ""));
}

// A stream whose shape lets more frames in flight than the device holds at a frame's size lets
// fewer in instead (gpu::stream_window) rather than sending the frame to the CPU: under a limit
// that holds the 512 x 512 frame with the planned load (two in the front end, four past it) but
// not with the eleven frames of eight back workers and three fronts, twelve frames (the three,
// four times) all take the GPU, each catalog the CPU's one-frame run's.
TEST_F(Frames, GpuStreamLetsFewerFramesInFlightWhereTheDeviceHoldsFewer) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::string> refs = reference_outputs(false);
  Settings s = settings((dir_ / "{index}.cat").string(), false, Backend::Cuda);
  const int64_t pixels = 512 * 512;
  const int64_t frame = gpu::frame_device_bytes(pixels), images = gpu::frame_image_bytes(pixels);
  s.config.gpu_memory_bytes = static_cast<int64_t>(
      static_cast<double>(gpu::stream_device_bytes(frame, images, 2, 4)) / gpu::kUsableShare + 1);
  const size_t window = gpu::stream_window(frame, images, 2, 6, 11, s.config.gpu_memory_bytes);
  EXPECT_GE(window, 6u);
  EXPECT_LT(window, 11u);
  std::vector<std::string> twelve;
  for (int r = 0; r < 4; ++r) twelve.insert(twelve.end(), images_.begin(), images_.end());
  std::vector<FrameReport> reports;
  const FramesSummary sum = extract_frames(
      twelve, s, {}, [&](const FrameReport& r) { reports.push_back(r); }, StreamShape{8, 2, 4, 3});
  EXPECT_EQ(sum.failed, 0u);
  ASSERT_EQ(reports.size(), 12u);
  for (size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(reports[k].error, "") << k;
    for (const std::string& w : reports[k].result.warnings)
      EXPECT_EQ(w.find("extracted on the CPU"), std::string::npos) << k << ": " << w;
    const std::string name = (k + 1 < 10 ? "0" : "") + std::to_string(k + 1) + ".cat";
    EXPECT_TRUE(slurp(refs[k % 3] + ".cat") == slurp(dir_ / name)) << k;
  }
}

// The pool's slots bound the leases: a third taker waits until one of two slots comes back.
// Without page-locked memory (a CPU stream, or no device) a slot lends none.
TEST(PinnedFramePool, SlotsBoundTheLeases) {
  cuda::PinnedFramePool pool(2, false, size_t(1) << 30);
  EXPECT_EQ(pool.slots(), 2u);
  auto a = pool.take();
  auto b = pool.take();
  EXPECT_EQ(a->floats(1000), nullptr);
  std::atomic<bool> got{false};
  std::thread third([&] {
    auto c = pool.take();
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(got.load());
  a.reset();
  third.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(pool.page_locked_bytes(), 0u);
}

// On a device: a slot's buffer is page-locked, reused by the next lease of the slot, grown for a
// larger frame, and never past the budget.
TEST(PinnedFramePool, GpuBuffersArePageLockedReusedAndGrown) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  cuda::PinnedFramePool pool(1, true, 4000 * sizeof(float));
  float* first = nullptr;
  {
    auto lease = pool.take();
    first = lease->floats(1000);
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(cuda::is_page_locked(first));
    EXPECT_GT(lease->allocation_seconds(), 0.0);
  }
  {
    auto lease = pool.take();
    EXPECT_EQ(lease->floats(800), first);  // the same memory, not allocated again
    EXPECT_EQ(lease->allocation_seconds(), 0.0);
    float* grown = lease->floats(3000);
    ASSERT_NE(grown, nullptr);
    EXPECT_TRUE(cuda::is_page_locked(grown));
    EXPECT_EQ(pool.page_locked_bytes(), 3000 * sizeof(float));
    EXPECT_EQ(lease->floats(5000), nullptr);  // past the budget: ordinary memory for that frame
  }
  EXPECT_FALSE(cuda::is_page_locked(std::vector<float>(10).data()));
}

// A frame-sized slot (2 MB or more: transparent huge pages, registered) is page-locked too, and
// holds what is written to it.
TEST(PinnedFramePool, GpuLargeBufferIsPageLocked) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const size_t n = size_t(3) << 20;  // 12 MB of floats
  cuda::PinnedFramePool pool(1, true, n * sizeof(float));
  auto lease = pool.take();
  float* p = lease->floats(n);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(cuda::is_page_locked(p));
  EXPECT_TRUE(cuda::is_page_locked(p + n - 1));
  for (size_t i = 0; i < n; i += 4099) p[i] = static_cast<float>(i);
  for (size_t i = 0; i < n; i += 4099) ASSERT_EQ(p[i], static_cast<float>(i));
}
