// SExtractor's PI (define.h: 3.1415926535898), which differs from M_PI in the 14th digit. Used
// wherever celeris reproduces SExtractor's arithmetic bit for bit (angles, ellipse areas, the
// background histogram step, the check-image polylines).
#pragma once

namespace celeris::extract {

inline constexpr double kSexPi = 3.1415926535898;

}  // namespace celeris::extract
