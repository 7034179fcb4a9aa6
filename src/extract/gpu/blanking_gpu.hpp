// The blanking codes (sextractor/blanking_view.hpp) made on the GPU from the GPU front end's two
// images, which are still there, and the objects' pixels: the host's Blanking constructor reads
// both images whole (a pass over 2 x 4 bytes a pixel) and the photometry then uploads the codes
// (4 more); here only the objects' pixels cross the bus (8 bytes each). The codes come to the
// host only when host code reads them (DeviceCodes::host), the same to the last pixel.
#pragma once

#include <memory>
#include <vector>

#include "core/cuda/stream_handle.hpp"
#include "extract/objects.hpp"
#include "extract/sextractor/scan_order.hpp"

namespace celeris::extract::gpu {

// `value` and `cvalue`: device images (FrontEnd::device_value, device_cvalue), width x height;
// `threshold`: the detection threshold (`pixel_threshold`, a device image, each pixel's own
// where given: FrontEnd::device_thresh); the objects after deblending and the merges of
// cleaning, as the host's Blanking takes them. Waits until the codes are made. Throws
// celeris::Error without a CUDA device (or in a build without CUDA).
std::shared_ptr<const DeviceCodes> blanking_codes(const float* value, const float* cvalue,
                                                  int64_t width, int64_t height, float threshold,
                                                  const ObjectList& objects,
                                                  const std::vector<CleanVictim>& removed,
                                                  int blank_lag, int threads,
                                                  const float* pixel_threshold = nullptr);

class BlankingDraft;  // blanking_draft.hpp

// A draft of a frame's codes, to which a GPU stage with the objects' pixel indexes on the
// device adds every object's codes (BlankingDraft::add, gpu/shapes_gpu.hpp) while the host goes
// on; arguments as blanking_codes'. Throws celeris::Error without a CUDA device (or in a build
// without CUDA).
std::shared_ptr<BlankingDraft> blanking_draft(const float* value, const float* cvalue,
                                              int64_t width, int64_t height, float threshold,
                                              const float* pixel_threshold = nullptr);

// The same codes as blanking_codes above, from a draft to which objects 0 .. objects.size() - 1
// were added: only the pixels of the objects merged away (in `removed`) are written here. A
// draft short of objects (a stage that measured some on the host) is not used: the codes are
// then made whole, as above. Waits until the codes are made.
std::shared_ptr<const DeviceCodes> blanking_codes(const std::shared_ptr<BlankingDraft>& draft,
                                                  int64_t width, const ObjectList& objects,
                                                  const std::vector<CleanVictim>& removed,
                                                  int blank_lag, int threads);

// A draft's codes completed while the clean pass runs (stages/measure_beside_pass.hpp): the
// objects merged away so far get their pixels' codes (blanking_codes' for them) a few merges at
// a time, on a stream of this object's, which the photometry's stream waits for before it
// measures the rows written out after those merges. Why the rows measured before a later merge
// are not changed by it: a row written out at moment M that reads a pixel of an object merged
// away at moment m >= M sees it blanked once the blanker has reached its row, whether the
// pixel holds the object's own code or its code as a victim (BlankingView::blanked: the
// given-back code is blanked up to moment m, and -1 always).
class CodesBesidePass {
 public:
  struct State;
  explicit CodesBesidePass(std::unique_ptr<State> state);
  ~CodesBesidePass();
  CodesBesidePass(const CodesBesidePass&) = delete;
  CodesBesidePass& operator=(const CodesBesidePass&) = delete;

  const int32_t* device() const;
  // The merges victims[0 .. count) (entries of CleanResult::removed, each object once, none
  // given before) of `objects` (the draft's, wherever they are now); `stream` waits for their
  // codes, and for the draft's (count 0: those alone).
  void merge(const ObjectList& objects, const CleanVictim* victims, size_t count,
             cuda::StreamHandle stream);
  // After the last merge, with every one of the frame's `objects` added to the draft: the
  // frame's codes, as blanking_codes gives them (else throws). Waits until they are made.
  std::shared_ptr<const DeviceCodes> finish(size_t objects);

 private:
  std::unique_ptr<State> state_;
};

// A draft (of `objects`, pre-sized: their storage stays put) taken over for completion beside the
// pass, once its first objects are added (else null); objects may still be added to it while
// the pass runs (the back end in chunks), each before the pass takes them. Throws celeris::Error
// without a CUDA device (or in a build without CUDA).
std::unique_ptr<CodesBesidePass> codes_beside_pass(const std::shared_ptr<BlankingDraft>& draft,
                                                   int64_t width, const ObjectList& objects,
                                                   int blank_lag);

}  // namespace celeris::extract::gpu
