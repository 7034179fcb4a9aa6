// Builds without CUDA: the GPU's blanking codes are not there, and asking for them is an error.
#include "celeris/error.hpp"
#include "extract/gpu/blanking_gpu.hpp"

namespace celeris::extract::gpu {

std::shared_ptr<const DeviceCodes> blanking_codes(const float*, const float*, int64_t, int64_t,
                                                  float, const ObjectList&,
                                                  const std::vector<CleanVictim>&, int, int,
                                                  const float*) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

std::shared_ptr<BlankingDraft> blanking_draft(const float*, const float*, int64_t, int64_t, float,
                                              const float*) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

std::shared_ptr<const DeviceCodes> blanking_codes(const std::shared_ptr<BlankingDraft>&, int64_t,
                                                  const ObjectList&,
                                                  const std::vector<CleanVictim>&, int, int) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

struct CodesBesidePass::State {};

CodesBesidePass::CodesBesidePass(std::unique_ptr<State> state) : state_(std::move(state)) {}
CodesBesidePass::~CodesBesidePass() = default;

const int32_t* CodesBesidePass::device() const {
  throw Error("--device cuda: this celeris was built without CUDA");
}

void CodesBesidePass::merge(const ObjectList&, const CleanVictim*, size_t, cuda::StreamHandle) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

std::shared_ptr<const DeviceCodes> CodesBesidePass::finish(size_t) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

std::unique_ptr<CodesBesidePass> codes_beside_pass(const std::shared_ptr<BlankingDraft>&, int64_t,
                                                   const ObjectList&, int) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

}  // namespace celeris::extract::gpu
