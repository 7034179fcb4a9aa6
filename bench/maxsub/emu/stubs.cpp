// Link stubs for the emulated convex check (run.sh): the other GPU searches are not emulated.
#include <stdexcept>
#include "celeris/device.hpp"
#include "maxsub/rect_cuda.hpp"
namespace celeris {
int cuda_device_count() {
  return 1;
}
Device resolve_device(Device d) {
  return d == Device::Auto ? Device::Cuda : d;
}
}  // namespace celeris
namespace celeris::maxsub::detail {
template <class T, class In>
MeshRect<T> cuda_rect_search(const CudaSource<In>&, CudaStageTimes*) {
  throw std::runtime_error("stub");
}
template <class T, class In>
MeshRect<T> cuda_mesh_search(bool, const CudaSource<In>&, CudaStageTimes*) {
  throw std::runtime_error("stub");
}
template MeshRect<double> cuda_rect_search<double, double>(const CudaSource<double>&,
                                                           CudaStageTimes*);
template MeshRect<double> cuda_rect_search<double, float>(const CudaSource<float>&,
                                                          CudaStageTimes*);
template MeshRect<float> cuda_rect_search<float, double>(const CudaSource<double>&,
                                                         CudaStageTimes*);
template MeshRect<float> cuda_rect_search<float, float>(const CudaSource<float>&, CudaStageTimes*);
template MeshRect<double> cuda_mesh_search<double, double>(bool, const CudaSource<double>&,
                                                           CudaStageTimes*);
template MeshRect<double> cuda_mesh_search<double, float>(bool, const CudaSource<float>&,
                                                          CudaStageTimes*);
template MeshRect<float> cuda_mesh_search<float, double>(bool, const CudaSource<double>&,
                                                         CudaStageTimes*);
template MeshRect<float> cuda_mesh_search<float, float>(bool, const CudaSource<float>&,
                                                        CudaStageTimes*);
}  // namespace celeris::maxsub::detail
