// Times the deblending stage of one frame detection by detection, to tell whether its wall time
// on many cores is bound by the largest detections (one thread plans one detection) or by the
// total work. The front end (background, filter, detection) runs as `celeris extract` runs it
// with the default configuration; then, on one thread, every detection's plan_deblend and
// finish_deblend are timed alone, and the stage itself (deblend()) is timed with --threads.
// Printed: the largest detections with their times, the totals, and for P threads the
// makespan of the stage's own schedule (largest first, each detection to the first free
// thread) next to the bound max(largest detection, total / P). Also timed: the rand() stream the
// stage takes after skipping --rand-offset numbers (a later extension of a multi-extension file
// starts deep into it), stepped one number at a time as before and jumped to by threads. And
// the stage as --device cuda runs it on the host: each detection's peaks given, the trees of
// the candidates of up to 256 pixels made beforehand by a builder (here on the host, inside
// its wait, where the GPU's would be), so that "from the builders' trees" and the pixel
// assignment are the host's share alone, measurable without a GPU.
//   bench_deblend IMAGE.fits [--threads N] [--repeat N] [--top N] [--cores 2,16]
//                 [--rand-offset N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <queue>
#include <sstream>
#include <string>
#include <vector>

#include "../common/cpu_front_end.hpp"
#include "../common/median.hpp"
#include "../common/options.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/deblend_tree_builder.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

using celeris::bench::median;

// The makespan of `times` (seconds, in the order the stage hands them out) on p threads that
// each take the next one when free (OpenMP's schedule(dynamic, 1)).
double makespan(const std::vector<double>& times, int p) {
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int k = 0; k < p; ++k) free_at.push(0.0);
  double end = 0;
  for (double t : times) {
    const double start = free_at.top();
    free_at.pop();
    free_at.push(start + t);
    end = std::max(end, start + t);
  }
  return end;
}

// A copy of the detection list (deblend() consumes its input).
ObjectList copy_of(const ObjectList& d) {
  return d;
}

// Trees made before the stage asks for them, as the GPU's builder makes them
// (gpu/deblend_trees_gpu.hpp takes candidates of up to 256 pixels): built on the host inside
// wait(), with their cores (the prune and the cores' chains, which the GPU makes beside the
// trees), so that the stage's own steps are the host's share of --device cuda's deblending.
class PrebuiltTrees final : public DeblendTreeBuilder {
 public:
  bool takes(size_t pixels, int64_t cells) const override { return pixels <= 256 && cells > 0; }
  void begin(size_t candidates, size_t, int nthresh, int minarea, int width, int height) override {
    nthresh_ = nthresh, minarea_ = minarea, width_ = width, height_ = height;
    given_.assign(candidates, {});
    trees_.assign(candidates, {});
  }
  void add(size_t j, size_t, const ObjectView& parent, const float* thresh, double value0,
           const TreeBox&, const OrderFreeSum&) override {
    given_[j] = {true, parent, std::vector<float>(thresh, thresh + nthresh_), value0};
  }
  void launch() override {}
  void wait() override {
    DeblendTreeScratch scratch;
    BuiltCoresScratch core_scratch;
    cores_.assign(given_.size(), {});
    for (size_t j = 0; j < given_.size(); ++j) {
      if (!given_[j].added) continue;
      DeblendTree& t = trees_[j];
      build_deblend_tree(given_[j].parent, given_[j].thresh, minarea_, width_, height_, scratch, t);
      if (t.overflow) continue;
      built_cores(given_[j].parent, t, nthresh_, given_[j].value0, nullptr, scratch, core_scratch,
                  cores_[j]);
    }
  }
  bool cores(size_t j, BuiltCores& out) const override {
    if (trees_[j].overflow) return false;
    out = cores_[j];
    return true;
  }
  bool tree(size_t j, DeblendTree& out) const override {
    out = trees_[j];
    return true;
  }
  size_t not_built() const override { return 0; }

 private:
  struct Given {
    bool added = false;
    ObjectView parent;
    std::vector<float> thresh;
    double value0 = 0;
  };
  int nthresh_ = 0, minarea_ = 0, width_ = 0, height_ = 0;
  std::vector<Given> given_;
  std::vector<DeblendTree> trees_;
  std::vector<BuiltCores> cores_;
};

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s IMAGE.fits [--threads N] [--repeat N] [--top N] [--cores 2,16] "
                 "[--rand-offset N]\n",
                 argv[0]);
    return 2;
  }
  int threads = 2, repeat = 5, top = 15;
  int64_t rand_offset = 100000000;
  std::string cores = "2,16";
  bench::parse_options(argc, argv, 2, [&](const std::string& key, const std::string& value) {
    if (key == "--threads")
      threads = std::stoi(value);
    else if (key == "--repeat")
      repeat = std::stoi(value);
    else if (key == "--top")
      top = std::stoi(value);
    else if (key == "--cores")
      cores = value;
    else if (key == "--rand-offset")
      rand_offset = std::stoll(value);
    else
      return false;
    return true;
  });
  const FitsImage img = read_fits_image(argv[1]);
  Config config;
  config.threads = threads;
  const bench::CpuFrontEnd front = bench::cpu_front_end(img.pixels.view(), config, threads);
  const Thresholds& t = front.thresholds;
  const ObjectList& detections = front.detections;
  const size_t n = detections.size();
  const DeblendParams params{config.deblend_nthresh,
                             config.deblend_mincont,
                             config.detect_minarea,
                             t.detect,
                             false,
                             static_cast<int>(img.pixels.width()),
                             static_cast<int>(img.pixels.height()),
                             false};

  // One thread: each detection's plan and finish alone.
  std::vector<double> plan_s(n, 0.0), finish_s(n, 0.0);
  std::vector<DeblendPlan> plans(n);
  // Each time the least of three runs: the host is shared, and a run preempted once reads as
  // a few milliseconds however small the detection (the second and third run find the
  // detection in cache: these are warm times).
  {
    DeblendScratch scratch;
    for (size_t i = 0; i < n; ++i) {
      plan_s[i] = 1e30;
      for (int r = 0; r < 3; ++r) {
        const auto t0 = Clock::now();
        plans[i] = plan_deblend(detections[i], params, scratch);
        plan_s[i] = std::min(plan_s[i], seconds_since(t0));
      }
    }
  }
  std::vector<size_t> first_object(n + 1, 0), first_draw(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    first_object[i + 1] = first_object[i] + (plans[i].split ? plans[i].cores.size() : 1);
    first_draw[i + 1] = first_draw[i] + plans[i].draws;
  }
  std::vector<int32_t> stream(first_draw[n]);
  GlibcRand rng;
  for (auto& v : stream) v = rng();
  {
    ObjectList out = copy_of(detections);
    out.offset.assign(first_object[n] + 1, 0);
    out.flags.resize(first_object[n]);
    out.fixed_centre.resize(first_object[n]);
    out.cx.resize(first_object[n]);
    out.cy.resize(first_object[n]);
    DeblendFinishScratch scratch;
    for (size_t i = 0; i < n; ++i) {
      if (!plans[i].split) continue;
      const auto t0 = Clock::now();
      finish_deblend(plans[i], stream.data() + first_draw[i], out, detections.offset[i],
                     detections.count(i), first_object[i], scratch);
      finish_s[i] = seconds_since(t0);
    }
  }

  // One pass over every detection on one thread, in the stage's order (largest first) and in
  // detection order (pixels one after the other in memory): what the order costs in cache misses.
  auto one_pass = [&](const std::vector<size_t>& order) {
    DeblendScratch scratch;
    const auto t0 = Clock::now();
    size_t splits = 0;
    for (size_t i : order) splits += plan_deblend(detections[i], params, scratch).split;
    const double t = seconds_since(t0);
    if (splits == 0 && n > 0) std::printf("(no split)\n");
    return t;
  };
  std::vector<size_t> in_order(n), largest_first(n);
  std::iota(in_order.begin(), in_order.end(), size_t{0});
  largest_first = in_order;
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [&](size_t a, size_t b) { return detections.count(a) > detections.count(b); });
  std::vector<double> pass_in_order, pass_largest_first;
  for (int k = 0; k < repeat; ++k) {
    pass_largest_first.push_back(one_pass(largest_first));
    pass_in_order.push_back(one_pass(in_order));
  }
  // The same pass split in two: may_split alone (count_peaks) on every detection, then the plans
  // of those of two peaks or more: what answering may_split elsewhere would leave.
  std::vector<size_t> several_peaks;
  std::vector<double> pass_may_split, pass_candidates;
  for (int k = 0; k < repeat; ++k) {
    DeblendScratch scratch;
    several_peaks.clear();
    const auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i)
      if (may_split(detections[i], params, scratch)) several_peaks.push_back(i);
    pass_may_split.push_back(seconds_since(t0));
    pass_candidates.push_back(one_pass(several_peaks));
  }

  // The stage as the pipeline runs it (its plans' storage kept from one run to the next, as
  // pipeline.cpp keeps it from one frame to the next).
  std::vector<double> stage_s;
  DeblendPlanPool pool;
  for (int k = 0; k <= repeat; ++k) {
    ObjectList d = copy_of(detections);
    const auto t0 = Clock::now();
    const Deblended r = deblend(std::move(d), params, 0, threads, nullptr, &pool);
    if (k > 0) stage_s.push_back(seconds_since(t0));
    if (r.objects.size() != first_object[n]) throw Error("deblend() and the timed plans differ");
  }

  // The stage as --device cuda runs it on the host (PrebuiltTrees): each step's median.
  std::vector<uint8_t> peaks(n);
  {
    DeblendTreeScratch scratch;
    for (size_t i = 0; i < n; ++i)
      peaks[i] = static_cast<uint8_t>(std::min(2, count_peaks(detections[i], 2, scratch)));
  }
  std::vector<std::pair<std::string, std::vector<double>>> host_steps;
  {
    DeblendParams with_trees = params;
    with_trees.peaks = &peaks;
    with_trees.trees = [] { return std::make_unique<PrebuiltTrees>(); };
    DeblendPlanPool trees_pool;
    for (int k = 0; k <= repeat; ++k) {
      ObjectList d = copy_of(detections);
      std::vector<std::pair<std::string, double>> steps;
      const Deblended r = deblend(std::move(d), with_trees, 0, threads, &steps, &trees_pool);
      if (r.objects.size() != first_object[n])
        throw Error("deblend() with prebuilt trees and the timed plans differ");
      if (k == 0) continue;
      for (const auto& [name, sec] : steps) {
        auto it = std::find_if(host_steps.begin(), host_steps.end(),
                               [&](const auto& e) { return e.first == name; });
        if (it == host_steps.end()) it = host_steps.insert(host_steps.end(), {name, {}});
        it->second.push_back(sec);
      }
    }
  }

  // The stream after rand_offset numbers: stepped (the stage before) and jumped to by threads.
  std::vector<int32_t> stepped(first_draw[n]), jumped(first_draw[n]);
  auto t_step = Clock::now();
  GlibcRand seq;
  for (int64_t i = 0; i < rand_offset; ++i) seq();
  for (auto& v : stepped) v = seq();
  const double step_s = seconds_since(t_step);
  std::vector<double> jump_s;
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = Clock::now();
    glibc_rand_stream(static_cast<uint64_t>(rand_offset), jumped.data(), jumped.size(), threads);
    jump_s.push_back(seconds_since(t0));
  }
  if (jumped != stepped) throw Error("the jumped stream differs from the stepped one");

  // Largest first, as deblend() handed the detections out before.
  std::vector<size_t> by_size(n);
  std::iota(by_size.begin(), by_size.end(), size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](size_t a, size_t b) { return detections.count(a) > detections.count(b); });
  std::vector<size_t> by_time = by_size;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](size_t a, size_t b) { return plan_s[a] > plan_s[b]; });

  const double plan_total = std::accumulate(plan_s.begin(), plan_s.end(), 0.0);
  const double finish_total = std::accumulate(finish_s.begin(), finish_s.end(), 0.0);
  size_t npix = 0, nsplit = 0;
  for (size_t i = 0; i < n; ++i) {
    npix += detections.count(i);
    nsplit += plans[i].split;
  }
  std::printf("%s: %zu detections, %zu pixels, %zu split into %zu objects, %zu draws\n", argv[1], n,
              npix, nsplit, first_object[n], first_draw[n]);
  std::printf("deblend() with %d threads: %.2f ms (median of %d)\n", threads, 1e3 * median(stage_s),
              repeat);
  std::printf(
      "stream of %zu draws after %lld: stepped %.2f ms, jumped with %d threads %.3f ms (median)\n",
      first_draw[n], static_cast<long long>(rand_offset), 1e3 * step_s, threads,
      1e3 * median(jump_s));
  std::printf("one thread, one pass of plans: largest first %.2f ms, detection order %.2f ms\n",
              1e3 * median(pass_largest_first), 1e3 * median(pass_in_order));
  std::printf(
      "one thread, in detection order: may_split on all %.2f ms; plans of the %zu of two peaks or "
      "more %.2f ms\n",
      1e3 * median(pass_may_split), several_peaks.size(), 1e3 * median(pass_candidates));
  std::printf("one thread: plan %.2f ms, finish %.2f ms in total\n", 1e3 * plan_total,
              1e3 * finish_total);
  std::printf(
      "deblend() with %d threads as --device cuda runs it (trees of up to 256 pixels "
      "made beforehand, peaks given), median ms:\n",
      threads);
  for (const auto& [name, secs] : host_steps)
    if (name.find("batch") == std::string::npos)
      std::printf("  %-50s %8.3f\n", name.c_str(), 1e3 * median(secs));
  std::printf("slowest plans (ms; pixels; children):\n");
  for (int k = 0; k < top && k < static_cast<int>(n); ++k) {
    const size_t i = by_time[k];
    std::printf("  %8.3f ms  %7zu px  %4zu children  finish %7.3f ms\n", 1e3 * plan_s[i],
                detections.count(i), plans[i].split ? plans[i].cores.size() : 1, 1e3 * finish_s[i]);
  }
  std::printf("largest detections (pixels; plan ms):\n");
  for (int k = 0; k < 5 && k < static_cast<int>(n); ++k)
    std::printf("  %7zu px  %8.3f ms\n", detections.count(by_size[k]), 1e3 * plan_s[by_size[k]]);
  double top_share = 0;
  for (int k = 0; k < 10 && k < static_cast<int>(n); ++k) top_share += plan_s[by_time[k]];
  std::printf("the 10 slowest plans: %.1f%% of the plan total\n", 100 * top_share / plan_total);

  // Plans go out as deblend() hands them out on p threads: the detections above 1/16 of a
  // thread's share of the pixels one by one, largest first, then the others in chunks of 8 in
  // detection order; finishes in chunks of 64 in detection order.
  auto plan_order = [&](int p) {
    const size_t share = npix / (16 * static_cast<size_t>(p));
    std::vector<double> order;
    for (size_t i : by_size)
      if (detections.count(i) > share) order.push_back(plan_s[i]);
    size_t in_chunk = 0;
    for (size_t i = 0; i < n; ++i) {
      if (detections.count(i) > share) continue;
      if (in_chunk++ % 8 == 0) order.push_back(0.0);
      order.back() += plan_s[i];
    }
    return order;
  };
  std::vector<double> finish_order((n + 63) / 64, 0.0);
  for (size_t k = 0; k < n; ++k) finish_order[k / 64] += finish_s[k];
  const double largest_plan = plan_s[by_time[0]];
  const double largest_finish = *std::max_element(finish_s.begin(), finish_s.end());
  std::stringstream list(cores);
  for (std::string c; std::getline(list, c, ',');) {
    const int p = std::stoi(c);
    std::printf(
        "%2d threads: plan makespan %.2f ms (bound max(%.2f, %.2f)), finish makespan %.2f ms "
        "(bound max(%.2f, %.2f))\n",
        p, 1e3 * makespan(plan_order(p), p), 1e3 * largest_plan, 1e3 * plan_total / p,
        1e3 * makespan(finish_order, p), 1e3 * largest_finish, 1e3 * finish_total / p);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_deblend: %s\n", e.what());
  return 1;
}
