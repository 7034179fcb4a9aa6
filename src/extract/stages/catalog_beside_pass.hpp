// The catalog's rows begun while the clean pass still runs (--device cuda, beside the GPU
// photometry of measure_beside_pass.hpp; Config::catalog_rows_beside_min_objects, off by
// default). After the pass the measurement allocates the catalog and writes every row's columns
// from its shape and isophotal values (measure_shape_columns.hpp): on the paper's dense 4096^2
// frame about 150,000 rows, 4.1-7.3 ms of host time on an H100 (stop 73). A thread beside the
// pass does that for the rows written out so far instead. Measured (stop 74) it removes that
// host time but gains the frame nothing: the measurement already made those columns while its
// GPU kernel ran, and the wait for the kernel grows by as much (dense 4096^2: +3.1 ms in 25
// paired rounds). A row's shape columns are final once the pass writes its object out,
// unless something was merged into the object: a merge goes into a list entry or a newcomer,
// never into an object already written out, and every merge made before a row's write-out is
// seen with that row (CleanPass::progress). The objects merged into hold their merged values in
// the pass's own slots until its finish, so their rows are left to the measurement, with the
// rows written at the pass's end (its finish's write-outs).
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <optional>
#include <vector>

#include "celeris/extract.hpp"
#include "core/deferred_thread.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/measure.hpp"

namespace celeris::extract {

class CatalogBesidePass {
 public:
  struct Inputs {
    const std::vector<Shape>* shapes = nullptr;  // as detected: the pass only reads them
    const std::vector<Iso>* isos = nullptr;
    size_t objects = 0;             // the frame's objects: the catalog's rows at most
    size_t n_aper = 0, n_frac = 0;  // the core columns' elements per row (Objects::resize)
    size_t batch_rows = 2048;       // rows written at a time, at least, while the pass runs
  };
  // What the thread wrote (measure.hpp): `left` lists the rows whose objects were merged
  // into, in increasing order.
  using Rows = RowsUnderWay;

  explicit CatalogBesidePass(Inputs inputs);
  ~CatalogBesidePass();
  CatalogBesidePass(const CatalogBesidePass&) = delete;
  CatalogBesidePass& operator=(const CatalogBesidePass&) = delete;

  // As PhotometryBesidePass's: the thread started ahead (optional), set going at the pass's
  // first newcomers, stopped after its last (it then takes the pass's last progress first).
  void prepare();
  void begin(const CleanPass& pass);
  void end() noexcept;
  // After end(): whether begin() set the thread going.
  bool started() const { return started_; }
  // After end(): the rows (rethrows the thread's error). Once.
  Rows take();
  double thread_seconds() const { return seconds_; }  // the thread's time from go to its end

 private:
  void write();
  Inputs in_;
  const CleanPass* pass_ = nullptr;
  std::atomic<bool> stop_{false};
  bool started_ = false;
  Rows rows_;
  double seconds_ = 0;
  std::exception_ptr error_;
  std::optional<DeferredThread> thread_;
};

}  // namespace celeris::extract
