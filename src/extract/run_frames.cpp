// A stream of frames through one extraction (extract_run.hpp extract_files): three threads
// joined by bounded queues, so that reading frame k+1 (and page-locking it for the GPU), the
// front stages of frame k (background, filter, detection; the GPU's with --device cuda) and the
// back stages, catalog and outputs of frame k-1 run at the same time. Every output is written
// from the last thread, in frame order. A frame that fails is reported and skipped; the others
// go on.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "core/bounded_queue.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/pipeline.hpp"
#include "extract/run_steps.hpp"

namespace celeris::extract {

namespace {

// The image's file name without its directory, CFITSIO's [..] selector and the usual FITS and
// compression suffixes: "/data/night1/r0042.fits.fz[1]" -> "r0042".
std::string image_stem(const std::string& path) {
  std::string name = path.substr(0, path.find('['));
  const size_t slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  for (bool again = true; again;) {
    again = false;
    for (const char* suffix : {".gz", ".fz", ".fits", ".fit", ".fts", ".FITS", ".FIT", ".FTS"}) {
      const std::string s = suffix;
      if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
        name.resize(name.size() - s.size());
        again = true;
      }
    }
  }
  return name;
}

bool has_pattern(const std::string& name) {
  return name.find("{stem}") != std::string::npos || name.find("{index}") != std::string::npos;
}

struct Job {
  size_t index = 0;
  std::string error;  // set when the frame failed in an earlier step
  Frame frame;
  FrontStage front;
};

}  // namespace

std::string frame_output_name(const std::string& pattern, const std::string& image_path,
                              size_t index, size_t total) {
  std::string digits = std::to_string(index + 1);
  const size_t width = std::to_string(total).size();
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  std::string out = pattern;
  for (const auto& [token, value] :
       {std::pair<std::string, std::string>{"{stem}", image_stem(image_path)}, {"{index}", digits}})
    for (size_t at = out.find(token); at != std::string::npos; at = out.find(token, at))
      out.replace(at, token.size(), value), at += value.size();
  return out;
}

std::vector<std::string> expand_image_list(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    if (a.empty() || a[0] != '@') {
      out.push_back(a);
      continue;
    }
    std::ifstream in(a.substr(1));
    if (!in) throw Error("image list " + a.substr(1) + ": cannot open");
    std::string line;
    while (std::getline(in, line)) {
      const size_t b = line.find_first_not_of(" \t\r");
      if (b == std::string::npos || line[b] == '#') continue;
      const size_t e = line.find_last_not_of(" \t\r");
      out.push_back(line.substr(b, e - b + 1));
    }
  }
  return out;
}

FramesSummary extract_files(const std::vector<std::string>& paths, const Settings& settings,
                            const WarningSink& warn, const FrameSink& done) {
  const auto t0 = std::chrono::steady_clock::now();
  if (paths.empty()) throw Error("no image given");
  const size_t total = paths.size();
  // Output names: one set per frame, all distinct, none an input.
  const bool catalog = settings.catalog_type != CatalogType::None;
  if (total > 1) {
    if (catalog && !has_pattern(settings.catalog_name) && settings.catalog_name != "STDOUT")
      throw Error("CATALOG_NAME " + settings.catalog_name + ": " + std::to_string(total) +
                  " frames need a name per frame: put {stem} (the image's name) or {index} in it, "
                  "e.g. -CATALOG_NAME {stem}.cat");
    for (size_t k = 0; k < settings.check_types.size() && k < settings.check_names.size(); ++k)
      if (!has_pattern(settings.check_names[k]))
        throw Error("CHECKIMAGE_NAME " + settings.check_names[k] + ": " + std::to_string(total) +
                    " frames need a name per frame: put {stem} or {index} in it");
  }
  std::vector<std::string> catalog_names(total);
  std::vector<std::vector<std::string>> check_names(total);
  std::set<std::string> taken;
  for (size_t i = 0; i < total; ++i) {
    auto claim = [&](const std::string& name) {
      if (name != "STDOUT" && !taken.insert(name).second)
        throw Error("output " + name + " would be written by two frames (" + paths[i] +
                    " and an earlier one): use {index} in the name");
    };
    catalog_names[i] = frame_output_name(settings.catalog_name, paths[i], i, total);
    if (catalog) claim(catalog_names[i]);
    for (size_t k = 0; k < settings.check_types.size() && k < settings.check_names.size(); ++k) {
      check_names[i].push_back(frame_output_name(settings.check_names[k], paths[i], i, total));
      claim(check_names[i].back());
    }
  }
  const RunPlan plan = plan_run(settings);
  if (warn)
    for (const auto& w : plan.warnings) warn(w);
  const bool gpu = settings.config.device == Backend::Cuda;

  // Two frames read ahead, one between the front and the back: at most four in memory.
  BoundedQueue<Job> read(2), fronted(1);
  std::thread reader([&] {
    for (size_t i = 0; i < total; ++i) {
      Job job;
      job.index = i;
      try {
        job.frame = read_frame(paths[i], catalog_names[i], check_names[i], settings, plan);
        const auto& px = job.frame.image.pixels;
        if (gpu) job.frame.locked = gpu::lock_host_memory(px.data(), px.size() * sizeof(float));
      } catch (const std::exception& e) {
        job.error = e.what();
      }
      read.push(std::move(job));
    }
    read.close();
  });
  std::thread front([&] {
    while (std::optional<Job> job = read.pop()) {
      if (job->error.empty()) try {
          Image<float>& px = job->frame.image.pixels;
          // The CPU path subtracts the background in the frame's own memory.
          job->front = extract_front(px.view(), gpu ? nullptr : &px, job->frame.config);
        } catch (const std::exception& e) {
          job->error = e.what();
        }
      fronted.push(std::move(*job));
    }
    fronted.close();
  });
  FramesSummary summary;
  summary.frames = total;
  while (std::optional<Job> job = fronted.pop()) {
    FrameReport report;
    report.index = job->index;
    report.total = total;
    report.path = paths[job->index];
    report.catalog_name = catalog_names[job->index];
    report.error = job->error;
    if (report.error.empty()) try {
        Result r = extract_back(std::move(job->front), job->frame.request);
        report.result = finish_frame(job->frame, std::move(r), settings, plan);
        summary.objects += report.result.catalog.rows;
      } catch (const std::exception& e) {
        report.error = e.what();
      }
    summary.failed += !report.error.empty();
    job.reset();  // the frame's memory goes before the report is handled
    if (done) done(report);
  }
  reader.join();
  front.join();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace celeris::extract
