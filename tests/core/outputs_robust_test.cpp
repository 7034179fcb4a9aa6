// Outputs of failed, interrupted and unusual runs (issue 18): no temporary or partial output
// left behind, no device replaced by a regular file, no input overwritten, STDOUT honoured.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "celeris/error.hpp"
#include "celeris/table.hpp"

namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path dir;
  Scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() /
          ("celeris_outputs_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string operator/(const std::string& n) const { return (dir / n).string(); }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a shell command; the exit status (or 128 + signal).
int sh(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

const std::string kBin = CELERIS_BIN;

void simulate(const Scratch& s) {
  ASSERT_EQ(sh(kBin + " simulate image --size 96 --stars 8 -o " + s / "img.fits" + " >/dev/null"),
            0);
}

size_t files_in(const fs::path& dir) {
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) ++n;
  return n;
}

}  // namespace

// Ctrl-C during a write: the handler removes the registered temporary (and the spills the
// cross-match derives from its name), then the process dies of the signal.
TEST(OutputsRobust, SignalRemovesTemporaries) {
  Scratch s;
  for (int sig : {SIGINT, SIGTERM}) {
    // A shell starts background jobs with SIGINT ignored, and celeris leaves an ignored signal
    // alone (the user asked for it): nothing to test then.
    struct sigaction now {};
    ASSERT_EQ(sigaction(sig, nullptr, &now), 0);
    if (now.sa_handler == SIG_IGN) continue;
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const std::string tmp = celeris::temporary_sibling(s / "out.cat");
      std::ofstream(tmp) << "partial";
      std::ofstream(tmp + ".pairs") << "spill";
      ::raise(sig);
      _exit(0);  // not reached
    }
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(st));
    EXPECT_EQ(WTERMSIG(st), sig);
    EXPECT_EQ(files_in(s.dir), 0u) << "signal " << sig;
  }
}

TEST(OutputsRobust, FailedRunRemovesItsEarlierOutputs) {
  Scratch s;
  {
    celeris::OutputRun run;
    celeris::write_atomically(s / "a.cat", [](const std::string& t) { std::ofstream(t) << "a"; });
    EXPECT_TRUE(fs::exists(s / "a.cat"));
  }  // no keep(): the run failed
  EXPECT_FALSE(fs::exists(s / "a.cat"));
  {
    celeris::OutputRun run;
    celeris::write_atomically(s / "b.cat", [](const std::string& t) { std::ofstream(t) << "b"; });
    run.keep();
  }
  EXPECT_EQ(slurp(s / "b.cat"), "b");
}

// extract: a check image that cannot be written takes the finished catalog with it.
TEST(OutputsRobust, ExtractFailingCheckImageLeavesNoCatalog) {
  Scratch s;
  simulate(s);
  const size_t inputs = files_in(s.dir);  // the image and its truth table
  const int rc = sh(kBin + " extract " + s / "img.fits" + " -CATALOG_NAME " + s / "out.cat" +
                    " -CHECKIMAGE_TYPE BACKGROUND -CHECKIMAGE_NAME " + s / "no/such/dir/b.fits" +
                    " >/dev/null 2>" + s / "err.txt");
  EXPECT_EQ(rc, 1);
  EXPECT_FALSE(fs::exists(s / "out.cat"));
  const std::string err = slurp(s / "err.txt");
  EXPECT_NE(err.find("no/such/dir/b.fits: cannot create"), std::string::npos) << err;
  EXPECT_EQ(files_in(s.dir), inputs + 1);  // and err.txt
}

TEST(OutputsRobust, OutputThatIsTheInputIsRefused) {
  Scratch s;
  simulate(s);
  const std::string before = slurp(s / "img.fits");
  EXPECT_EQ(sh(kBin + " extract " + s / "img.fits" + " -CATALOG_NAME " + s / "img.fits" +
               " >/dev/null 2>" + s / "err.txt"),
            1);
  EXPECT_NE(slurp(s / "err.txt").find("is the input"), std::string::npos) << slurp(s / "err.txt");
  // The same file by another name.
  EXPECT_EQ(sh(kBin + " extract " + s / "img.fits[0]" + " -CHECKIMAGE_TYPE BACKGROUND" +
               " -CHECKIMAGE_NAME " + s.dir.string() + "/./img.fits -CATALOG_NAME " + s / "c.cat" +
               " >/dev/null 2>/dev/null"),
            1);
  EXPECT_EQ(sh(kBin + " maxsub " + s / "img.fits" + " --mask " + s / "img.fits" +
               " >/dev/null 2>/dev/null"),
            1);
  EXPECT_EQ(slurp(s / "img.fits"), before);
  EXPECT_FALSE(fs::exists(s / "c.cat"));
}

// SExtractor's CATALOG_NAME STDOUT: the catalog on standard output, the summary on stderr.
TEST(OutputsRobust, CatalogNameStdoutWritesToStandardOutput) {
  Scratch s;
  simulate(s);
  const size_t inputs = files_in(s.dir);
  ASSERT_EQ(sh("cd " + s.dir.string() + " && " + kBin + " extract img.fits -CATALOG_NAME STDOUT" +
               " >out.txt 2>err.txt"),
            0);
  const std::string out = slurp(s / "out.txt"), err = slurp(s / "err.txt");
  EXPECT_EQ(out.rfind("#   1 NUMBER", 0), 0u) << out.substr(0, 200);
  EXPECT_EQ(out.find("celeris extract"), std::string::npos);
  EXPECT_NE(err.find("objects"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(s / "STDOUT"));
  EXPECT_EQ(files_in(s.dir), inputs + 2);  // out.txt, err.txt: no temporary left
}

// An output that is a FIFO (or /dev/null) is written into, not replaced by a regular file.
TEST(OutputsRobust, NonRegularOutputIsWrittenInPlace) {
  Scratch s;
  simulate(s);
  ASSERT_EQ(::mkfifo((s / "pipe").c_str(), 0600), 0);
  const int rc =
      sh("cat " + s / "pipe" + " >" + s / "got.cat" + " & " + kBin + " extract " + s / "img.fits" +
         " -CATALOG_NAME " + s / "pipe" + " >/dev/null; st=$?; wait;" + " exit $st");
  EXPECT_EQ(rc, 0);
  struct stat st {};
  ASSERT_EQ(::stat((s / "pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(slurp(s / "got.cat").rfind("#   1 NUMBER", 0), 0u);
  // /dev/null stays a character device.
  ASSERT_EQ(sh(kBin + " extract " + s / "img.fits" + " -CATALOG_NAME /dev/null >/dev/null"), 0);
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}
