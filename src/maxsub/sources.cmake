# celeris maxsub: maximum subarray (rectangles, K-maximum, convex). Included from src/CMakeLists.txt.
target_sources(celeris PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/maxsub/rect.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/maxsub/kmax_overlap.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/maxsub/convex.cpp
)
if(CELERIS_HAVE_CUDA)
  target_sources(celeris PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/maxsub/rect_cuda.cu
    ${CMAKE_CURRENT_SOURCE_DIR}/maxsub/mesh_cuda.cu
    ${CMAKE_CURRENT_SOURCE_DIR}/maxsub/convex_cuda.cu)
endif()
