// `celeris simulate cube` and `celeris spp` end to end through the installed binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "celeris/hyperspectral.hpp"
#include "test_util.hpp"

namespace celeris::hyperspectral {
namespace {

using testing::ScratchDir;

int run(const std::string& args) {
  const std::string cmd = std::string(CELERIS_BIN) + " " + args + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(CELERIS_BIN)) GTEST_SKIP() << "no " << CELERIS_BIN;
  }
};

TEST_F(Cli, SimulateIsDeterministicAndSppMatchesLibrary) {
  ScratchDir dir;
  const std::string sim =
      "simulate cube --lines 20 --samples 15 --bands 12 --endmembers 3 --seed 5";
  ASSERT_EQ(run(sim + " -o " + (dir / "a.hdr") + " --interleave bip"), 0);
  ASSERT_EQ(run(sim + " -o " + (dir / "b.hdr")), 0);
  const Cube a = read_cube(dir / "a.hdr"), b = read_cube(dir / "b.hdr");
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.source.envi_interleave, "bip");

  ASSERT_EQ(
      run("spp " + (dir / "a.hdr") + " --window 5 --device cpu --alpha " + (dir / "alpha.fits")),
      0);
  ASSERT_TRUE(std::filesystem::exists(dir / "a_spp.hdr"));
  ASSERT_TRUE(std::filesystem::exists(dir / "alpha.fits"));
  const Cube out = read_cube(dir / "a_spp.hdr");
  EXPECT_EQ(out.source.envi_interleave, "bip");  // layout carried over
  EXPECT_EQ(out.wavelengths, a.wavelengths);
  EXPECT_NE(slurp(dir / "a_spp.hdr").find("celeris simulate cube"), std::string::npos);
  EXPECT_EQ(out.data, spp(a, {5, Device::Cpu, false}).cube.data);

  ASSERT_EQ(run("spp " + (dir / "a.hdr") + " -w 3 --bands 2-4,10 -o " + (dir / "sub.fits")), 0);
  const Cube sub = read_cube(dir / "sub.fits");
  EXPECT_EQ(sub.bands, 4);
  // --device cpu: the library call below is the CPU path (CUDA agreement is SppCuda's test).
  ASSERT_EQ(run("spp " + (dir / "a.hdr") + " -w 3 --device cpu -o " + (dir / "m.mat")), 0);
  EXPECT_EQ(read_cube(dir / "m.mat").data, spp(a, {3, Device::Cpu, false}).cube.data);
}

TEST_F(Cli, ErrorsExitNonZeroWithoutOutput) {
  ScratchDir dir;
  ASSERT_EQ(run("simulate cube --lines 5 --samples 5 --bands 3 -o " + (dir / "c.hdr")), 0);
  EXPECT_EQ(run("spp " + (dir / "c.hdr") + " --window 4 -o " + (dir / "o.hdr")), 1);
  EXPECT_EQ(run("spp " + (dir / "c.hdr") + " --bands 1-9 -o " + (dir / "o.hdr")), 1);
  EXPECT_EQ(run("spp " + (dir / "missing.hdr") + " -o " + (dir / "o.hdr")), 1);
  EXPECT_NE(run("spp"), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "o.hdr"));
  EXPECT_FALSE(std::filesystem::exists(dir / "o.img"));
  EXPECT_EQ(run("spp --help"), 0);
  EXPECT_EQ(run("simulate cube --help"), 0);
}

}  // namespace
}  // namespace celeris::hyperspectral
