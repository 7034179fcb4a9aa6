#include "extract/settings/parameters.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

#include "celeris/error.hpp"
#include "extract/settings/threads.hpp"
#include "extract/sextractor/fk5_to_fk4.hpp"
#include "extract/sextractor/parameter_names.hpp"
#include "extract/stages/measure_class_star.hpp"
#include "extract/stages/measure_growth.hpp"
#include "extract/stages/measure_pixel_scale.hpp"
#include "extract/stages/measure_windowed.hpp"
#include "extract/stages/measure_world_shape.hpp"

namespace celeris::extract {

namespace {
using CT = ColumnType;
}

const std::vector<ParamSpec>& parameter_table() {
  static const std::vector<ParamSpec> table = {
      {"NUMBER", "", "Running object number", CT::Int32, "%10d", false, false},
      {"ID_PARENT", "", "Parent ID (before deblending)", CT::Int32, "%10d", false, false},
      {"EXT_NUMBER", "", "FITS extension number", CT::Int16, "%3d", false, false},
      {"X_IMAGE", "pixel", "Object position along x", CT::Float32, "%11.4f", false, false},
      {"Y_IMAGE", "pixel", "Object position along y", CT::Float32, "%11.4f", false, false},
      {"X_IMAGE_DBL", "pixel", "Object position along x (double precision)", CT::Float64, "%11.4f",
       false, false},
      {"Y_IMAGE_DBL", "pixel", "Object position along y (double precision)", CT::Float64, "%11.4f",
       false, false},
      {"XPEAK_IMAGE", "pixel", "x-coordinate of the brightest pixel", CT::Int32, "%10d", false,
       false},
      {"YPEAK_IMAGE", "pixel", "y-coordinate of the brightest pixel", CT::Int32, "%10d", false,
       false},
      {"XMIN_IMAGE", "pixel", "Minimum x-coordinate among detected pixels", CT::Int32, "%10d",
       false, false},
      {"YMIN_IMAGE", "pixel", "Minimum y-coordinate among detected pixels", CT::Int32, "%10d",
       false, false},
      {"XMAX_IMAGE", "pixel", "Maximum x-coordinate among detected pixels", CT::Int32, "%10d",
       false, false},
      {"YMAX_IMAGE", "pixel", "Maximum y-coordinate among detected pixels", CT::Int32, "%10d",
       false, false},
      {"X2_IMAGE", "pixel**2", "Variance along x", CT::Float64, "%18.10e", false, false},
      {"Y2_IMAGE", "pixel**2", "Variance along y", CT::Float64, "%18.10e", false, false},
      {"XY_IMAGE", "pixel**2", "Covariance between x and y", CT::Float64, "%18.10e", false, false},
      {"ERRX2_IMAGE", "pixel**2", "Variance of position along x", CT::Float64, "%18.10e", false,
       false},
      {"ERRY2_IMAGE", "pixel**2", "Variance of position along y", CT::Float64, "%18.10e", false,
       false},
      {"ERRXY_IMAGE", "pixel**2", "Covariance of position between x and y", CT::Float64, "%18.10e",
       false, false},
      {"A_IMAGE", "pixel", "Profile RMS along major axis", CT::Float32, "%9.3f", false, false},
      {"B_IMAGE", "pixel", "Profile RMS along minor axis", CT::Float32, "%9.3f", false, false},
      {"THETA_IMAGE", "deg", "Position angle (CCW/x)", CT::Float32, "%6.2f", false, false},
      {"ELONGATION", "", "A_IMAGE/B_IMAGE", CT::Float32, "%8.3f", false, false},
      {"ELLIPTICITY", "", "1 - B_IMAGE/A_IMAGE", CT::Float32, "%8.3f", false, false},
      {"CXX_IMAGE", "pixel**(-2)", "Cxx object ellipse parameter", CT::Float32, "%15.7e", false,
       false},
      {"CYY_IMAGE", "pixel**(-2)", "Cyy object ellipse parameter", CT::Float32, "%15.7e", false,
       false},
      {"CXY_IMAGE", "pixel**(-2)", "Cxy object ellipse parameter", CT::Float32, "%15.7e", false,
       false},
      {"ISOAREA_IMAGE", "pixel**2", "Isophotal area above Analysis threshold", CT::Int32, "%9d",
       false, false},
      {"ISOAREAF_IMAGE", "pixel**2", "Isophotal area (filtered) above Detection threshold",
       CT::Int32, "%9d", false, false},
      {"FLUX_ISO", "count", "Isophotal flux", CT::Float32, "%12.7g", false, false},
      {"FLUXERR_ISO", "count", "RMS error for isophotal flux", CT::Float32, "%12.7g", false, false},
      {"MAG_ISO", "mag", "Isophotal magnitude", CT::Float32, "%8.4f", false, false},
      {"MAGERR_ISO", "mag", "RMS error for isophotal magnitude", CT::Float32, "%8.4f", false,
       false},
      {"FLUX_MAX", "count", "Peak flux above background", CT::Float32, "%12.7g", false, false},
      {"BACKGROUND", "count", "Background at centroid position", CT::Float32, "%12.7g", false,
       false},
      {"THRESHOLD", "count", "Detection threshold above background", CT::Float32, "%12.7g", false,
       false},
      {"FLUX_AUTO", "count", "Flux within a Kron-like elliptical aperture", CT::Float32, "%12.7g",
       false, false},
      {"FLUXERR_AUTO", "count", "RMS error for AUTO flux", CT::Float32, "%12.7g", false, false},
      {"MAG_AUTO", "mag", "Kron-like elliptical aperture magnitude", CT::Float32, "%8.4f", false,
       false},
      {"MAGERR_AUTO", "mag", "RMS error for AUTO magnitude", CT::Float32, "%8.4f", false, false},
      {"KRON_RADIUS", "", "Kron apertures in units of A or B", CT::Float32, "%5.2f", false, false},
      {"FLUX_APER", "count", "Flux vector within fixed circular aperture(s)", CT::Float32, "%12.7g",
       true, false},
      {"FLUXERR_APER", "count", "RMS error vector for aperture flux(es)", CT::Float32, "%12.7g",
       true, false},
      {"MAG_APER", "mag", "Fixed aperture magnitude vector", CT::Float32, "%8.4f", true, false},
      {"MAGERR_APER", "mag", "RMS error vector for fixed aperture mag.", CT::Float32, "%8.4f", true,
       false},
      {"FLUX_RADIUS", "pixel", "Fraction-of-light radii", CT::Float32, "%10.3f", true, false},
      {"FWHM_IMAGE", "pixel", "FWHM assuming a gaussian core", CT::Float32, "%8.2f", false, false},
      {"FLAGS", "", "Extraction flags", CT::Int16, "%3d", false, false},
      {"X_WORLD", "deg", "Barycenter position along world x axis", CT::Float64, "%18.10e", false,
       true},
      {"Y_WORLD", "deg", "Barycenter position along world y axis", CT::Float64, "%18.10e", false,
       true},
      {"ALPHA_J2000", "deg", "Right ascension of barycenter (J2000)", CT::Float64, "%11.7f", false,
       true},
      {"DELTA_J2000", "deg", "Declination of barycenter (J2000)", CT::Float64, "%+11.7f", false,
       true},
      // --- position error ellipse (from ERRX2/ERRY2/ERRXY_IMAGE)
      {"ERRA_IMAGE", "pixel", "RMS position error along major axis", CT::Float32, "%9.5f", false,
       false},
      {"ERRB_IMAGE", "pixel", "RMS position error along minor axis", CT::Float32, "%9.5f", false,
       false},
      {"ERRTHETA_IMAGE", "deg", "Error ellipse position angle (CCW/x)", CT::Float32, "%6.2f", false,
       false},
      {"ERRCXX_IMAGE", "pixel**(-2)", "Cxx error ellipse parameter", CT::Float32, "%12.7g", false,
       false},
      {"ERRCYY_IMAGE", "pixel**(-2)", "Cyy error ellipse parameter", CT::Float32, "%12.7g", false,
       false},
      {"ERRCXY_IMAGE", "pixel**(-2)", "Cxy error ellipse parameter", CT::Float32, "%12.7g", false,
       false},
      // --- isophotal areas, CLASS_STAR (measure_class_star.hpp), surface brightnesses
      {"ISO0", "pixel**2", "Isophotal area at level 0", CT::Int32, "%8d", false, false},
      {"ISO1", "pixel**2", "Isophotal area at level 1", CT::Int32, "%8d", false, false},
      {"ISO2", "pixel**2", "Isophotal area at level 2", CT::Int32, "%8d", false, false},
      {"ISO3", "pixel**2", "Isophotal area at level 3", CT::Int32, "%8d", false, false},
      {"ISO4", "pixel**2", "Isophotal area at level 4", CT::Int32, "%8d", false, false},
      {"ISO5", "pixel**2", "Isophotal area at level 5", CT::Int32, "%8d", false, false},
      {"ISO6", "pixel**2", "Isophotal area at level 6", CT::Int32, "%8d", false, false},
      {"ISO7", "pixel**2", "Isophotal area at level 7", CT::Int32, "%8d", false, false},
      {"CLASS_STAR", "", "S/G classifier output", CT::Float32, "%6.3f", false, false},
      {"THRESHOLDMAX", "count", "Maximum threshold possible for detection", CT::Float32, "%12.7g",
       false, false},
      {"MU_THRESHOLD", "mag * arcsec**(-2)", "Analysis threshold above background", CT::Float32,
       "%8.4f", false, false},
      {"MU_MAX", "mag * arcsec**(-2)", "Peak surface brightness above background", CT::Float32,
       "%8.4f", false, false},
      {"FWHM_WORLD", "deg", "FWHM assuming a gaussian core", CT::Float32, "%12.7g", false, false},
      {"ISOAREA_WORLD", "deg**2", "Isophotal area above Analysis threshold", CT::Float32, "%12.7g",
       false, false},
      {"ISOAREAF_WORLD", "deg**2", "Isophotal area (filtered) above Detection threshold",
       CT::Float32, "%12.7g", false, false},
      // SEEING_FWHM itself (arcsec, in SExtractor's "pixel" column: analyse.c copies it into
      // fwhm_psf when a seeing is given), and in world units as FWHM_WORLD scales FWHM_IMAGE.
      {"FWHMPSF_IMAGE", "pixel", "FWHM of the local PSF model", CT::Float32, "%8.3f", false, false},
      {"FWHMPSF_WORLD", "deg", "FWHM of the local PSF model (world units)", CT::Float32, "%12.7g",
       false, false},
      // The measurement's wall-clock time (Objects::duration_analysis): cannot match
      // SExtractor's bit for bit; same type, unit and format.
      {"DURATION_ANALYSIS", "s", "Duration of analysis for this source", CT::Float32, "%9.4g",
       false, false},
      // --- shapes and position errors in world coordinates (measure_world_shape.hpp)
      {"X2_WORLD", "deg**2", "Variance along X-WORLD (alpha)", CT::Float64, "%18.10e", false, true},
      {"Y2_WORLD", "deg**2", "Variance along Y-WORLD (delta)", CT::Float64, "%18.10e", false, true},
      {"XY_WORLD", "deg**2", "Covariance between X-WORLD and Y-WORLD", CT::Float64, "%18.10e",
       false, true},
      {"CXX_WORLD", "deg**(-2)", "Cxx object ellipse parameter (WORLD units)", CT::Float32,
       "%15.7e", false, true},
      {"CYY_WORLD", "deg**(-2)", "Cyy object ellipse parameter (WORLD units)", CT::Float32,
       "%15.7e", false, true},
      {"CXY_WORLD", "deg**(-2)", "Cxy object ellipse parameter (WORLD units)", CT::Float32,
       "%15.7e", false, true},
      {"A_WORLD", "deg", "Profile RMS along major axis (world units)", CT::Float32, "%12.7g", false,
       true},
      {"B_WORLD", "deg", "Profile RMS along minor axis (world units)", CT::Float32, "%12.7g", false,
       true},
      {"THETA_WORLD", "deg", "Position angle (CCW/world-x)", CT::Float32, "%6.2f", false, true},
      {"THETA_J2000", "deg", "Position angle (east of north) (J2000)", CT::Float32, "%+6.2f", false,
       true},
      {"ERRX2_WORLD", "deg**2", "Variance of position along X-WORLD (alpha)", CT::Float64,
       "%18.10e", false, true},
      {"ERRY2_WORLD", "deg**2", "Variance of position along Y-WORLD (delta)", CT::Float64,
       "%18.10e", false, true},
      {"ERRXY_WORLD", "deg**2", "Covariance of position X-WORLD/Y-WORLD", CT::Float64, "%18.10e",
       false, true},
      {"ERRCXX_WORLD", "deg**(-2)", "Cxx error ellipse parameter (WORLD units)", CT::Float32,
       "%12.7g", false, true},
      {"ERRCYY_WORLD", "deg**(-2)", "Cyy error ellipse parameter (WORLD units)", CT::Float32,
       "%12.7g", false, true},
      {"ERRCXY_WORLD", "deg**(-2)", "Cxy error ellipse parameter (WORLD units)", CT::Float32,
       "%12.7g", false, true},
      {"ERRA_WORLD", "deg", "World RMS position error along major axis", CT::Float32, "%12.7g",
       false, true},
      {"ERRB_WORLD", "deg", "World RMS position error along minor axis", CT::Float32, "%12.7g",
       false, true},
      {"ERRTHETA_WORLD", "deg", "Error ellipse pos. angle (CCW/world-x)", CT::Float32, "%6.2f",
       false, true},
      {"ERRTHETA_J2000", "deg", "J2000 error ellipse pos. angle (east of north)", CT::Float32,
       "%6.2f", false, true},
      // --- windowed shapes and position errors in world coordinates, peak and native (_SKY)
      // coordinates, "polarisations" (measure_world_shape.hpp)
      {"X2WIN_WORLD", "deg**2", "Windowed variance along X-WORLD (alpha)", CT::Float64, "%18.10e",
       false, true},
      {"Y2WIN_WORLD", "deg**2", "Windowed variance along Y-WORLD (delta)", CT::Float64, "%18.10e",
       false, true},
      {"XYWIN_WORLD", "deg**2", "Windowed covariance between X-WORLD and Y-WORLD", CT::Float64,
       "%18.10e", false, true},
      {"CXXWIN_WORLD", "deg**(-2)", "Windowed Cxx object ellipse parameter (WORLD units)",
       CT::Float32, "%15.7e", false, true},
      {"CYYWIN_WORLD", "deg**(-2)", "Windowed Cyy object ellipse parameter (WORLD units)",
       CT::Float32, "%15.7e", false, true},
      {"CXYWIN_WORLD", "deg**(-2)", "Windowed Cxy object ellipse parameter (WORLD units)",
       CT::Float32, "%15.7e", false, true},
      {"AWIN_WORLD", "deg", "Windowed profile RMS along major axis (world units)", CT::Float32,
       "%12.7g", false, true},
      {"BWIN_WORLD", "deg", "Windowed profile RMS along minor axis (world units)", CT::Float32,
       "%12.7g", false, true},
      {"THETAWIN_WORLD", "deg", "Windowed position angle (CCW/world-x)", CT::Float32, "%6.2f",
       false, true},
      {"THETAWIN_SKY", "deg", "Windowed position angle (east of north) (native)", CT::Float32,
       "%+6.2f", false, true},
      {"THETAWIN_J2000", "deg", "Windowed position angle (east of north) (J2000)", CT::Float32,
       "%+6.2f", false, true},
      {"ERRX2WIN_WORLD", "deg**2", "Variance of windowed pos along X-WORLD (alpha)", CT::Float64,
       "%18.10e", false, true},
      {"ERRY2WIN_WORLD", "deg**2", "Variance of windowed pos along Y-WORLD (delta)", CT::Float64,
       "%18.10e", false, true},
      {"ERRXYWIN_WORLD", "deg**2", "Covariance of windowed pos X-WORLD/Y-WORLD", CT::Float64,
       "%18.10e", false, true},
      {"ERRCXXWIN_IMAGE", "pixel**(-2)", "Cxx windowed error ellipse parameter", CT::Float32,
       "%12.7g", false, false},
      {"ERRCYYWIN_IMAGE", "pixel**(-2)", "Cyy windowed error ellipse parameter", CT::Float32,
       "%12.7g", false, false},
      {"ERRCXYWIN_IMAGE", "pixel**(-2)", "Cxy windowed error ellipse parameter", CT::Float32,
       "%12.7g", false, false},
      {"ERRCXXWIN_WORLD", "deg**(-2)", "Cxx windowed error ellipse parameter (WORLD units)",
       CT::Float32, "%12.7g", false, true},
      {"ERRCYYWIN_WORLD", "deg**(-2)", "Cyy windowed error ellipse parameter (WORLD units)",
       CT::Float32, "%12.7g", false, true},
      {"ERRCXYWIN_WORLD", "deg**(-2)", "Cxy windowed error ellipse parameter (WORLD units)",
       CT::Float32, "%12.7g", false, true},
      {"ERRAWIN_WORLD", "deg", "World RMS windowed pos error along major axis", CT::Float32,
       "%12.7g", false, true},
      {"ERRBWIN_WORLD", "deg", "World RMS windowed pos error along minor axis", CT::Float32,
       "%12.7g", false, true},
      {"ERRTHETAWIN_WORLD", "deg", "Windowed error ellipse pos. angle (CCW/world-x)", CT::Float32,
       "%6.2f", false, true},
      {"ERRTHETAWIN_SKY", "deg", "Native windowed error ellipse pos. angle (east of north)",
       CT::Float32, "%6.2f", false, true},
      {"ERRTHETAWIN_J2000", "deg", "J2000 windowed error ellipse pos. angle (east of north)",
       CT::Float32, "%6.2f", false, true},
      {"XPEAK_WORLD", "deg", "World-x coordinate of the brightest pixel", CT::Float64, "%18.10e",
       false, true},
      {"YPEAK_WORLD", "deg", "World-y coordinate of the brightest pixel", CT::Float64, "%18.10e",
       false, true},
      {"ALPHAPEAK_SKY", "deg", "Right ascension of brightest pix (native)", CT::Float64, "%11.7f",
       false, true},
      {"DELTAPEAK_SKY", "deg", "Declination of brightest pix (native)", CT::Float64, "%+11.7f",
       false, true},
      {"ALPHAPEAK_J2000", "deg", "Right ascension of brightest pix (J2000)", CT::Float64, "%11.7f",
       false, true},
      {"DELTAPEAK_J2000", "deg", "Declination of brightest pix (J2000)", CT::Float64, "%+11.7f",
       false, true},
      {"ALPHA_SKY", "deg", "Right ascension of barycenter (native)", CT::Float64, "%11.7f", false,
       true},
      {"DELTA_SKY", "deg", "Declination of barycenter (native)", CT::Float64, "%+11.7f", false,
       true},
      {"ALPHAWIN_SKY", "deg", "Windowed right ascension  (native)", CT::Float64, "%11.7f", false,
       true},
      {"DELTAWIN_SKY", "deg", "Windowed declination (native)", CT::Float64, "%+11.7f", false, true},
      {"THETA_SKY", "deg", "Position angle (east of north) (native)", CT::Float32, "%+6.2f", false,
       true},
      {"ERRTHETA_SKY", "deg", "Native error ellipse pos. angle (east of north)", CT::Float32,
       "%6.2f", false, true},
      {"X_FOCAL", "", "Barycenter position along focal-plane x axis", CT::Float64, "%18.10e", false,
       true},
      {"Y_FOCAL", "", "Barycenter position along focal-plane y axis", CT::Float64, "%18.10e", false,
       true},
      {"XPEAK_FOCAL", "", "Focal-plane x coordinate of the brightest pixel", CT::Float64, "%18.10e",
       false, true},
      {"YPEAK_FOCAL", "", "Focal-plane y coordinate of the brightest pixel", CT::Float64, "%18.10e",
       false, true},
      {"XWIN_FOCAL", "", "Windowed position along focal-plane x axis", CT::Float64, "%18.10e",
       false, true},
      {"YWIN_FOCAL", "", "Windowed position along focal-plane y axis", CT::Float64, "%18.10e",
       false, true},
      {"X_MAMA", "m**(-6)", "Barycenter position along MAMA x axis", CT::Float64, "%8.1f", false,
       true},
      {"Y_MAMA", "m**(-6)", "Barycenter position along MAMA y axis", CT::Float64, "%8.1f", false,
       true},
      {"POLAR_IMAGE", "", "(A_IMAGE^2 - B_IMAGE^2)/(A_IMAGE^2 + B_IMAGE^2)", CT::Float32, "%7.5f",
       false, false},
      {"POLAR_WORLD", "", "(A_WORLD^2 - B_WORLD^2)/(A_WORLD^2 + B_WORLD^2)", CT::Float32, "%7.5f",
       false, true},
      {"POLARWIN_IMAGE", "", "(AWIN^2 - BWIN^2)/(AWIN^2 + BWIN^2)", CT::Float32, "%7.5f", false,
       false},
      {"POLARWIN_WORLD", "", "(AWIN^2 - BWIN^2)/(AWIN^2 + BWIN^2)", CT::Float32, "%7.5f", false,
       true},
      // --- corrected isophotal and best fluxes (measure_best.hpp)
      {"FLUX_ISOCOR", "count", "Corrected isophotal flux", CT::Float32, "%12.7g", false, false},
      {"FLUXERR_ISOCOR", "count", "RMS error for corrected isophotal flux", CT::Float32, "%12.7g",
       false, false},
      {"MAG_ISOCOR", "mag", "Corrected isophotal magnitude", CT::Float32, "%8.4f", false, false},
      {"MAGERR_ISOCOR", "mag", "RMS error for corrected isophotal magnitude", CT::Float32, "%8.4f",
       false, false},
      {"FLUX_BEST", "count", "Best of FLUX_AUTO and FLUX_ISOCOR", CT::Float32, "%12.7g", false,
       false},
      {"FLUXERR_BEST", "count", "RMS error for BEST flux", CT::Float32, "%12.7g", false, false},
      {"MAG_BEST", "mag", "Best of MAG_AUTO and MAG_ISOCOR", CT::Float32, "%8.4f", false, false},
      {"MAGERR_BEST", "mag", "RMS error for MAG_BEST", CT::Float32, "%8.4f", false, false},
      // --- flag maps (measure_flag_maps.hpp)
      {"IMAFLAGS_ISO", "", "FLAG-image flags OR'ed over the iso. profile", CT::Int32, "%9u", true,
       false},
      {"NIMAFLAGS_ISO", "", "Number of flagged pixels entering IMAFLAGS_ISO", CT::Int32, "%9d",
       true, false},
      // --- windowed measurements (measure_windowed.hpp)
      {"XWIN_IMAGE", "pixel", "Windowed position estimate along x", CT::Float64, "%11.4f", false,
       false},
      {"YWIN_IMAGE", "pixel", "Windowed position estimate along y", CT::Float64, "%11.4f", false,
       false},
      {"ERRX2WIN_IMAGE", "pixel**2", "Variance of windowed pos along x", CT::Float64, "%18.10e",
       false, false},
      {"ERRY2WIN_IMAGE", "pixel**2", "Variance of windowed pos along y", CT::Float64, "%18.10e",
       false, false},
      {"ERRXYWIN_IMAGE", "pixel**2", "Covariance of windowed pos between x and y", CT::Float64,
       "%18.10e", false, false},
      {"ERRAWIN_IMAGE", "pixel", "RMS windowed pos error along major axis", CT::Float32, "%9.5f",
       false, false},
      {"ERRBWIN_IMAGE", "pixel", "RMS windowed pos error along minor axis", CT::Float32, "%9.5f",
       false, false},
      {"ERRTHETAWIN_IMAGE", "deg", "Windowed error ellipse pos angle (CCW/x)", CT::Float32, "%6.2f",
       false, false},
      {"X2WIN_IMAGE", "pixel**2", "Windowed variance along x", CT::Float64, "%18.10e", false,
       false},
      {"Y2WIN_IMAGE", "pixel**2", "Windowed variance along y", CT::Float64, "%18.10e", false,
       false},
      {"XYWIN_IMAGE", "pixel**2", "Windowed covariance between x and y", CT::Float64, "%18.10e",
       false, false},
      {"CXXWIN_IMAGE", "pixel**(-2)", "Windowed Cxx object ellipse parameter", CT::Float32,
       "%15.7e", false, false},
      {"CYYWIN_IMAGE", "pixel**(-2)", "Windowed Cyy object ellipse parameter", CT::Float32,
       "%15.7e", false, false},
      {"CXYWIN_IMAGE", "pixel**(-2)", "Windowed Cxy object ellipse parameter", CT::Float32,
       "%15.7e", false, false},
      {"AWIN_IMAGE", "pixel", "Windowed profile RMS along major axis", CT::Float32, "%9.3f", false,
       false},
      {"BWIN_IMAGE", "pixel", "Windowed profile RMS along minor axis", CT::Float32, "%9.3f", false,
       false},
      {"THETAWIN_IMAGE", "deg", "Windowed position angle (CCW/x)", CT::Float32, "%6.2f", false,
       false},
      {"FLUX_WIN", "count", "Gaussian-weighted flux", CT::Float32, "%12.7g", false, false},
      {"FLUXERR_WIN", "count", "RMS error for WIN flux", CT::Float32, "%12.7g", false, false},
      {"MAG_WIN", "mag", "Gaussian-weighted magnitude", CT::Float32, "%8.4f", false, false},
      {"MAGERR_WIN", "mag", "RMS error for MAG_WIN", CT::Float32, "%8.4f", false, false},
      {"SNR_WIN", "", "Gaussian-weighted SNR", CT::Float32, "%10.4g", false, false},
      {"FLAGS_WIN", "", "Flags for WINdowed parameters", CT::Int16, "%3d", false, false},
      {"NITER_WIN", "", "Number of iterations for WIN centering", CT::Int16, "%3d", false, false},
      {"XWIN_WORLD", "deg", "Windowed position along world x axis", CT::Float64, "%18.10e", false,
       true},
      {"YWIN_WORLD", "deg", "Windowed position along world y axis", CT::Float64, "%18.10e", false,
       true},
      {"ALPHAWIN_J2000", "deg", "Windowed right ascension (J2000)", CT::Float64, "%11.7f", false,
       true},
      {"DELTAWIN_J2000", "deg", "windowed declination (J2000)", CT::Float64, "%+11.7f", false,
       true},
      // --- B1950 (SExtractor's conversion from J2000, sextractor/fk5_to_fk4.hpp)
      {"ALPHA_B1950", "deg", "Right ascension of barycenter (B1950)", CT::Float64, "%11.7f", false,
       true},
      {"DELTA_B1950", "deg", "Declination of barycenter (B1950)", CT::Float64, "%+11.7f", false,
       true},
      {"ALPHAPEAK_B1950", "deg", "Right ascension of brightest pix (B1950)", CT::Float64, "%11.7f",
       false, true},
      {"DELTAPEAK_B1950", "deg", "Declination of brightest pix (B1950)", CT::Float64, "%+11.7f",
       false, true},
      {"ALPHAWIN_B1950", "deg", "Windowed right ascension (B1950)", CT::Float64, "%11.7f", false,
       true},
      {"DELTAWIN_B1950", "deg", "Windowed declination (B1950)", CT::Float64, "%+11.7f", false,
       true},
      {"THETA_B1950", "deg", "Position angle (east of north) (B1950)", CT::Float32, "%+6.2f", false,
       true},
      {"ERRTHETA_B1950", "deg", "B1950 error ellipse pos. angle (east of north)", CT::Float32,
       "%6.2f", false, true},
      {"THETAWIN_B1950", "deg", "Windowed position angle (east of north) (B1950)", CT::Float32,
       "%+6.2f", false, true},
      {"ERRTHETAWIN_B1950", "deg", "B1950 windowed error ellipse pos. angle (east of north)",
       CT::Float32, "%6.2f", false, true},
      // --- Petrosian photometry (measure_petro.hpp), growth curve (measure_growth.hpp), VIGNET
      {"FLUX_PETRO", "count", "Flux within a Petrosian-like elliptical aperture", CT::Float32,
       "%12.7g", false, false},
      {"FLUXERR_PETRO", "count", "RMS error for PETROsian flux", CT::Float32, "%12.7g", false,
       false},
      {"MAG_PETRO", "mag", "Petrosian-like elliptical aperture magnitude", CT::Float32, "%8.4f",
       false, false},
      {"MAGERR_PETRO", "mag", "RMS error for PETROsian magnitude", CT::Float32, "%8.4f", false,
       false},
      {"PETRO_RADIUS", "", "Petrosian apertures in units of A or B", CT::Float32, "%5.2f", false,
       false},
      {"FLUX_GROWTH", "count", "Cumulated growth-curve", CT::Float32, "%12.7g", true, false},
      {"FLUX_GROWTHSTEP", "pixel", "Step for growth-curves", CT::Float32, "%10.3f", false, false},
      {"MAG_GROWTH", "mag", "Cumulated magnitude growth-curve", CT::Float32, "%8.4f", true, false},
      {"MAG_GROWTHSTEP", "pixel", "Step for growth-curves", CT::Float32, "%10.3f", false, false},
      {"VIGNET", "count", "Pixel data around detection", CT::Float32, "%12.7g", true, false},
      {"VIGNET_SHIFT", "count", "Pixel data around detection, corrected for shift", CT::Float32,
       "%12.7g", true, false},
      // --- differential geometry (stages/dgeo_map.hpp, measure_dgeo.hpp)
      {"DGEOX_IMAGE", "pixel", "Differential geometry correction to X_IMAGE", CT::Float32, "%+7.4f",
       false, false},
      {"DGEOY_IMAGE", "pixel", "Differential geometry correction to Y_IMAGE", CT::Float32, "%+7.4f",
       false, false},
      {"DGEOXWIN_IMAGE", "pixel", "Differential geometry correction to XWIN_IMAGE", CT::Float32,
       "%+7.4f", false, false},
      {"DGEOYWIN_IMAGE", "pixel", "Differential geometry correction to YWIN_IMAGE", CT::Float32,
       "%+7.4f", false, false},
      {"VIGNET_DGEOX", "pix", "Differential x geometry data around detection", CT::Float32,
       "%+10.6f", true, false},
      {"VIGNET_DGEOY", "pix", "Differential y geometry data around detection", CT::Float32,
       "%+10.6f", true, false},
      // --- weight flags (measure_weight_flags.hpp)
      {"FLAGS_WEIGHT", "", "Weighted extraction flags", CT::Int16, "%1d", false, false},
      {"NLOWWEIGHT_ISO", "", "Nb of pixels with low weight over the iso. profile", CT::Int32, "%9d",
       false, false},
      {"NLOWDWEIGHT_ISO", "", "Nb of pixels with low det. weight over the iso. profile", CT::Int32,
       "%9d", false, false},
      // --- ASSOC (stages/assoc.hpp)
      {"VECTOR_ASSOC", "", "ASSOCiated parameter vector", CT::Float64, "%12.7g", true, false},
      {"NUMBER_ASSOC", "", "Number of ASSOCiated IDs", CT::Int32, "%10d", false, false},
  };
  return table;
}

const ParamSpec* find_parameter(const std::string& name) {
  for (const auto& p : parameter_table())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<RequestedParam> parse_parameter_list(const std::string& text, const std::string& origin,
                                                 std::vector<std::string>& warnings) {
  std::vector<RequestedParam> out;
  std::vector<std::string> missing;  // SExtractor parameters celeris does not compute
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    const size_t end = line.find_first_of(" \t{[(\r", start);
    const std::string name =
        line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    int size = 1, width = 0, height = 0;
    const bool sized =
        end != std::string::npos && (line[end] == '(' || line[end] == '[' || line[end] == '{');
    if (sized) {
      size = std::atoi(line.c_str() + end + 1);
      if (size < 1)
        throw Error(origin + " line " + std::to_string(lineno) + ": bad vector size in '" +
                    printable_excerpt(line) + "'");
    }
    // --- hook: VIGNET(w,h), a two-dimensional cell
    if (name == "VIGNET" || name == "VIGNET_SHIFT" || name == "VIGNET_DGEOX" ||
        name == "VIGNET_DGEOY") {
      const char* c = sized ? line.c_str() + end + 1 : "";
      char* after = nullptr;
      const long w = std::strtol(c, &after, 10);
      const long h = *after == ',' ? std::strtol(after + 1, &after, 10) : 0;
      if (!sized || w < 1 || h < 1 || w > 4096 || h > 4096)
        throw Error(origin + " line " + std::to_string(lineno) + ": " + name +
                    " needs its size in pixels, " + name + "(w,h), each 1 to 4096 (got '" +
                    printable_excerpt(line) + "')");
      width = static_cast<int>(w);
      height = static_cast<int>(h);
      size = width * height;
    }
    const ParamSpec* spec = find_parameter(name);
    if (!spec) {
      // SExtractor's own parameters that celeris does not compute are refused (a catalog
      // silently lacking them would go unnoticed); names SExtractor does not know either only
      // warn, as in SExtractor.
      if (is_sextractor_parameter(name)) {
        if (std::find(missing.begin(), missing.end(), name) == missing.end())
          missing.push_back(name);
      } else {
        warnings.push_back(origin + " line " + std::to_string(lineno) + ": catalog parameter " +
                           printable_excerpt(name) + " unknown (ignored)");
      }
      continue;
    }
    // Listed again: one column, where it was first listed, with the sizes of its last listing
    // (SExtractor's readcatparams adds the key once but writes each listing's sizes into the
    // same prefs field; a vector listed again without "(n)" is back to 1 element).
    const auto again = std::find_if(out.begin(), out.end(),
                                    [&](const RequestedParam& r) { return r.spec == spec; });
    if (again != out.end()) {
      if (spec->is_vector) *again = {spec, size, width, height};
      continue;
    }
    out.push_back({spec, spec->is_vector ? size : 1, width, height});
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw Error(origin + ": catalog parameter" + (missing.size() > 1 ? "s " : " ") + list +
                (missing.size() > 1 ? " are" : " is") +
                " not computed by celeris yet (celeris extract -dp lists those it computes)");
  }
  if (out.empty()) throw Error(origin + ": no catalog parameter requested");
  return out;
}

std::vector<RequestedParam> read_parameter_list(const std::string& path,
                                                std::vector<std::string>& warnings) {
  std::ifstream in(path);
  if (!in) {
    if (path == "default.param") return default_parameter_list();
    throw Error("PARAMETERS_NAME " + path + ": cannot open parameter file (no such file)");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_parameter_list(ss.str(), path, warnings);
}

std::vector<RequestedParam> default_parameter_list() {
  std::vector<std::string> w;
  return parse_parameter_list(
      "NUMBER\nX_IMAGE\nY_IMAGE\nALPHA_J2000\nDELTA_J2000\nFLUX_ISO\nFLUXERR_ISO\nFLUX_AUTO\n"
      "FLUXERR_AUTO\nMAG_AUTO\nMAGERR_AUTO\nFLUX_APER(1)\nFLUXERR_APER(1)\nKRON_RADIUS\n"
      "A_IMAGE\nB_IMAGE\nTHETA_IMAGE\nFWHM_IMAGE\nFLUX_RADIUS\nBACKGROUND\nFLAGS\n",
      "default.param (built in)", w);
}

int requested_apertures(const std::vector<RequestedParam>& params, int configured) {
  int n = 0;
  for (const auto& p : params)
    if (std::string(p.spec->name).find("_APER") != std::string::npos) n = std::max(n, p.size);
  return std::min(n, configured);
}

int requested_fluxfracs(const std::vector<RequestedParam>& params, int configured) {
  int n = 0;
  for (const auto& p : params)
    if (std::string(p.spec->name) == "FLUX_RADIUS") n = std::max(n, p.size);
  return std::min(n, configured);
}

namespace {

double mag(double flux, double zp) {
  return flux > 0 ? -2.5 * std::log10(flux) + zp : 99.0;
}
double magerr(double flux, double err) {
  return flux > 0 ? 1.086 * err / flux : 99.0;
}

// Where make_catalog puts one position per object through the world frame: world() in the
// header's axis order, sky() (native longitude, latitude) and j2000()
// (sextractor/world_frame.hpp); a null pair is not computed.
struct WorldColumns {
  std::vector<double>* w0 = nullptr;
  std::vector<double>* w1 = nullptr;
  std::vector<double>* lon = nullptr;
  std::vector<double>* lat = nullptr;
  std::vector<double>* ra = nullptr;
  std::vector<double>* dec = nullptr;
};

}  // namespace

Table make_catalog(const Objects& o, const std::vector<RequestedParam>& params,
                   const Config& config, const std::optional<WorldFrame>& wcs) {
  const size_t n = o.size();
  const int naper = static_cast<int>(config.phot_apertures.size());
  const int nfrac = static_cast<int>(config.phot_fluxfrac.size());
  const double zp = config.mag_zeropoint;
  // The per-object world conversions and the columns run on `nthreads` OpenMP threads (one
  // per 4096 objects at most: a crowded 4096^2 frame has 40k), each with its own copy of the
  // world frame (wcslib's wcsp2s writes into its structure: WorldFrame::independent_copy).
  const int nthreads = worker_threads(config.threads, static_cast<int64_t>(n) * 32);
  std::vector<WorldFrame> thread_frames;
  if (wcs && nthreads > 1)
    for (int t = 0; t < nthreads; ++t) thread_frames.push_back(wcs->independent_copy());
  auto frame_of_thread = [&]() -> const WorldFrame& {
    return thread_frames.empty() ? *wcs : thread_frames[static_cast<size_t>(omp_get_thread_num())];
  };
  // The world coordinates of the 1-based pixel positions px(i), py(i), i < count (n: one per
  // object), in blocks, one wcslib call per block (WorldFrame::convert): the values of world(),
  // sky() and j2000() called one position at a time.
  auto to_world = [&](auto px, auto py, const WorldColumns& c, size_t count = 0) {
    constexpr size_t kBlock = 512;
    if (count == 0) count = n;
    for (std::vector<double>* v : {c.w0, c.w1, c.lon, c.lat, c.ra, c.dec})
      if (v) v->resize(count);
    auto at = [](std::vector<double>* v, size_t i) { return v ? v->data() + i : nullptr; };
    const long nblocks = static_cast<long>((count + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1)
    for (long b = 0; b < nblocks; ++b) {
      const size_t i0 = static_cast<size_t>(b) * kBlock, m = std::min(kBlock, count - i0);
      double x[kBlock], y[kBlock];
      for (size_t k = 0; k < m; ++k) x[k] = px(i0 + k), y[k] = py(i0 + k);
      frame_of_thread().convert(
          m, x, y,
          {at(c.w0, i0), at(c.w1, i0), at(c.lon, i0), at(c.lat, i0), at(c.ra, i0), at(c.dec, i0)});
    }
  };
  // World coordinates of the (1-based) barycentres, computed once: in the header's axis
  // order, native longitude and latitude, J2000 (sextractor/world_frame.hpp).
  std::vector<double> xw, yw, as, ds, ra, dec;
  if (wcs)
    to_world([&](size_t i) { return o.x[i] + 1; }, [&](size_t i) { return o.y[i] + 1; },
             {&xw, &yw, &as, &ds, &ra, &dec});
  const size_t nmap = n ? o.imaflags.size() / n : 0;  // flag maps measured
  // Vector sizes of the growth curves and VIGNET asked for.
  int n_flux_growth = 0, n_mag_growth = 0;
  size_t vignet_size = 0;
  std::vector<long> vignet_dims;
  for (const auto& p : params) {
    const std::string nm = p.spec->name;
    if (nm == "FLUX_GROWTH") n_flux_growth = p.size;
    if (nm == "MAG_GROWTH") n_mag_growth = p.size;
    if (nm == "VIGNET")
      vignet_size = static_cast<size_t>(p.size), vignet_dims = {p.width, p.height};
  }
  const size_t nassoc = n ? o.assoc.size() / n : 0;  // VECTOR_ASSOC elements
  // World shapes through the local Jacobian at the barycentre (also for the windowed moments,
  // as SExtractor), when asked for: isophotal, position error, windowed, windowed error.
  std::vector<WorldShape> ws, we, wws, wwe;
  std::vector<double> dtheta;  // SExtractor's dtheta2000 at the barycentre
  bool want_world_shape = false, want_j2000 = false, want_area = false;
  for (const auto& p : params) {
    want_world_shape |= uses_world_jacobian(p.spec->name);
    want_j2000 |= uses_j2000_rotation(p.spec->name);
    want_area |= uses_local_pixel_area(p.spec->name);
  }
  // PIXEL_SCALE 0: the local pixel area (deg^2) at each barycentre, from the same Jacobian
  // (measure_pixel_scale.hpp; run.cpp reads the WCS for it).
  want_area &= config.pixel_scale == 0.0;
  if (want_area && !wcs)  // a caller that did not read the world frame (run.cpp does)
    throw Error("PIXEL_SCALE 0 needs the image's world frame for the local pixel area");
  std::vector<double> area;
  if (wcs && (want_world_shape || want_area)) {
    if (want_world_shape) ws.resize(n), we.resize(n);
    if (want_area) area.resize(n);
    const bool win = want_world_shape && !o.x2win.empty();
    if (win) wws.resize(n), wwe.resize(n);
    // local_jacobian's three positions per object, (x, y), (x + 1, y) and (x, y + 1), through
    // the frame in batches: position 3 i + k of object i.
    std::vector<double> jw0, jw1;
    to_world(
        [&](size_t p) {
          const double x = o.x[p / 3] + 1;
          return p % 3 == 1 ? x + 1.0 : x;
        },
        [&](size_t p) {
          const double y = o.y[p / 3] + 1;
          return p % 3 == 2 ? y + 1.0 : y;
        },
        {&jw0, &jw1}, 3 * n);
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (size_t i = 0; i < n; ++i) {
      const double w[3][2] = {{jw0[3 * i], jw1[3 * i]},
                              {jw0[3 * i + 1], jw1[3 * i + 1]},
                              {jw0[3 * i + 2], jw1[3 * i + 2]}};
      const Jacobian j = local_jacobian(*wcs, w);
      if (want_area) area[i] = local_pixel_area(j);
      if (!j.ok || !want_world_shape) continue;
      ws[i] = world_shape(j, o.x2[i], o.y2[i], o.xy[i]);
      we[i] = world_shape(j, o.errx2[i], o.erry2[i], o.errxy[i]);
      if (!win) continue;
      wws[i] = world_shape(j, o.x2win[i], o.y2win[i], o.xywin[i]);
      wwe[i] =
          world_shape(j, o.errx2win[i], o.erry2win[i], o.errxywin[i], ThetaFold::WinErrUnfolded);
    }
  }
  // SExtractor computes the rotation to J2000, and the THETA*_J2000 angles, only on a frame
  // with celestial axes (0 on a linear frame).
  const bool celestial = wcs && wcs->celestial();
  if (celestial && want_j2000) {
    dtheta.resize(n);
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (size_t i = 0; i < n; ++i) dtheta[i] = dtheta_j2000(ra[i], dec[i]);
  }
  // SExtractor's POLAR_IMAGE, in its float arithmetic on the float A_IMAGE and B_IMAGE.
  auto polar = [](float a, float b) { return double((a * a - b * b) / (a * a + b * b)); };
  // Peak pixel (1-based) through the WCS, when asked for.
  bool want_peak = false;
  for (const auto& p : params)
    want_peak |= std::string(p.spec->name).find("PEAK_") != std::string::npos && p.spec->needs_wcs;
  std::vector<double> xpw, ypw, aspk, dspk, rapk, decpk;
  if (wcs && want_peak)
    to_world([&](size_t i) { return o.xpeak[i] + 1.0; }, [&](size_t i) { return o.ypeak[i] + 1.0; },
             {&xpw, &ypw, &aspk, &dspk, &rapk, &decpk});
  // The pixel scale as source-extractor 2.25 applies it: its world areas and FWHM_WORLD agree to
  // the last digit only with PIXEL_SCALE rounded to float (HorseHead with 0.6 and 0.37: 177 of
  // 579 ISOAREA_WORLD differ in the 7th digit in double).
  const double pixscale = static_cast<float>(config.pixel_scale);
  auto best = [&](size_t i, bool err) -> double {
    if (o.flags[i] & kFlagNeighbours) return err ? o.fluxerr_isocor[i] : o.flux_isocor[i];
    return static_cast<float>(err ? o.fluxerr_auto[i] : o.flux_auto[i]);
  };
  // SExtractor's surface brightness (photom.c), float value; with PIXEL_SCALE 0 over the local
  // pixel area in arcsec^2, in its order of operations.
  auto mu = [&](float adu, size_t i) {
    const double arcsec2 = area.empty() ? pixscale * pixscale : area[i] * 3600.0 * 3600.0;
    return adu > 0.0f ? -2.5 * std::log10(adu / arcsec2) + zp : 99.0;
  };
  // FWHM_WORLD's scale (deg) and the world areas' (deg^2): PIXEL_SCALE, or the local pixel area.
  auto scale_deg = [&](size_t i) { return area.empty() ? pixscale / 3600.0 : std::sqrt(area[i]); };
  auto area_deg2 = [&](size_t i) {
    return area.empty() ? pixscale / 3600.0 * pixscale / 3600.0 : area[i];
  };
  // Windowed world coordinates, when asked for.
  std::vector<double> xww, yww, asw, dsw, raw, decw;
  if (wcs && !o.xwin.empty())
    to_world([&](size_t i) { return o.xwin[i] + 1; }, [&](size_t i) { return o.ywin[i] + 1; },
             {&xww, &yww, &asw, &dsw, &raw, &decw});
  // B1950 positions and SExtractor's rotation of north to B1950 at the barycentre, when asked
  // for (equatorial J2000 frames only: run.cpp refuses others).
  std::vector<Radec> b1950, b1950_peak, b1950_win;
  std::vector<double> dtheta1950;
  bool want_b1950 = false, b1950_pole = false;
  for (const auto& p : params) {
    want_b1950 |= is_b1950_column(p.spec->name);
    b1950_pole |= converts_b1950_pole(p.spec->name);
  }
  if (wcs && want_b1950) {
    const double epoch = config.wcs_equinox;  // SExtractor passes the EQUINOX as the epoch
    auto convert = [&](const std::vector<double>& a, const std::vector<double>& d) {
      std::vector<Radec> out(a.size());
      const long m = static_cast<long>(a.size());
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
      for (long i = 0; i < m; ++i) out[i] = sextractor_j2000_to_b1950(epoch, a[i], d[i]);
      return out;
    };
    b1950 = convert(ra, dec);
    b1950_peak = convert(rapk, decpk);
    b1950_win = convert(raw, decw);
    // initastrom converts the J2000 pole only for THETA_B1950 / ERRTHETA_B1950; otherwise it
    // stays at the (0, 0) SExtractor's structure was allocated with (fk5_to_fk4.hpp).
    const Radec pole = b1950_pole ? sextractor_j2000_to_b1950(epoch, 0.0, 90.0) : Radec{};
    dtheta1950.resize(n);
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (size_t i = 0; i < n; ++i) dtheta1950[i] = sextractor_dtheta_b1950(pole, b1950[i], yw[i]);
  }
  // SExtractor's position error ellipse (analyse.c), per object.
  auto err_ellipse = [&](size_t i, int which) {
    float a, b, theta;
    error_ellipse(o.errx2[i], o.erry2[i], o.errxy[i], a, b, theta);
    return double(which == 0 ? a : which == 1 ? b : theta);
  };
  // SExtractor's position error ellipse coefficients (analyse.c, winpos.c: no guard against a
  // singular matrix there), of the isophotal or the windowed error moments.
  auto err_c_of = [](double xm2, double ym2, double xym, int which) {
    const double det = xm2 * ym2 - xym * xym;
    return double(static_cast<float>(which == 0   ? ym2 / det
                                     : which == 1 ? xm2 / det
                                                  : -2 * xym / det));
  };
  auto err_c = [&](size_t i, int which) {
    return err_c_of(o.errx2[i], o.erry2[i], o.errxy[i], which);
  };
  // Where FLAGS_WIN reverts to the isophotal values, SExtractor (winpos.c) copies its
  // ERRCXX/ERRCYY/ERRCXY_IMAGE, which it computes only when one of them is in the catalog (else
  // the 0 its structure was initialised with).
  bool errc_asked = false;
  for (const auto& p : params) {
    const std::string nm = p.spec->name;
    errc_asked |= nm == "ERRCXX_IMAGE" || nm == "ERRCYY_IMAGE" || nm == "ERRCXY_IMAGE";
  }
  auto errwin_c = [&](size_t i, int which) {
    if (o.flags_win[i]) return errc_asked ? err_c(i, which) : 0.0;
    return err_c_of(o.errx2win[i], o.erry2win[i], o.errxywin[i], which);
  };
  // SExtractor's POLARWIN_IMAGE (winpos.c): from the windowed moments; where FLAGS_WIN reverts
  // them to the isophotal ones, its copy of POLAR_IMAGE, which SExtractor computes only when
  // POLAR_IMAGE is in the catalog (else the 0 its structure was initialised with).
  bool polar_asked = false;
  for (const auto& p : params) polar_asked |= std::string(p.spec->name) == "POLAR_IMAGE";
  auto polarwin = [&](size_t i) {
    if (o.flags_win[i]) return polar_asked ? polar(float(o.a[i]), float(o.b[i])) : 0.0;
    const double mx2 = o.x2win[i], my2 = o.y2win[i], mxy = o.xywin[i], d = mx2 - my2;
    return std::sqrt(0.25 * d * d + mxy * mxy) / (0.5 * (mx2 + my2));
  };
  // The world coordinates (axis order) X_MAMA and Y_MAMA need, converted once when asked for:
  // the columns are filled on several threads, which must not share the WCS.
  bool want_mama = false;
  for (const auto& p : params)
    want_mama |= std::string(p.spec->name) == "X_MAMA" || std::string(p.spec->name) == "Y_MAMA";
  std::vector<double> mama_w0, mama_w1;
  if (wcs && want_mama)
    to_world([&](size_t i) { return o.x[i] + 1 - 0.5; }, [&](size_t i) { return o.y[i] + 1 - 0.5; },
             {&mama_w0, &mama_w1});
  auto mama = [&](size_t i) {
    const double w0 = mama_w0[i], w1 = mama_w1[i];
    return std::pair<double, double>(w1 * (3.3e-5 + 1.0), w0 * (3.3e-5 + 1.0));
  };
  using Getter = std::function<double(size_t, int)>;
  auto scalar = [](const auto& v) { return Getter([&v](size_t i, int) { return double(v[i]); }); };
  const std::map<std::string, Getter> getters = {
      {"NUMBER", [](size_t i, int) { return double(i + 1); }},
      {"ID_PARENT", scalar(o.id_parent)},
      {"EXT_NUMBER", [&](size_t, int) { return double(config.ext_number); }},
      {"X_IMAGE", [&](size_t i, int) { return o.x[i] + 1; }},
      {"Y_IMAGE", [&](size_t i, int) { return o.y[i] + 1; }},
      {"X_IMAGE_DBL", [&](size_t i, int) { return o.x[i] + 1; }},
      {"Y_IMAGE_DBL", [&](size_t i, int) { return o.y[i] + 1; }},
      {"XPEAK_IMAGE", [&](size_t i, int) { return o.xpeak[i] + 1.0; }},
      {"YPEAK_IMAGE", [&](size_t i, int) { return o.ypeak[i] + 1.0; }},
      {"XMIN_IMAGE", [&](size_t i, int) { return o.xmin[i] + 1.0; }},
      {"YMIN_IMAGE", [&](size_t i, int) { return o.ymin[i] + 1.0; }},
      {"XMAX_IMAGE", [&](size_t i, int) { return o.xmax[i] + 1.0; }},
      {"YMAX_IMAGE", [&](size_t i, int) { return o.ymax[i] + 1.0; }},
      {"X2_IMAGE", scalar(o.x2)},
      {"Y2_IMAGE", scalar(o.y2)},
      {"XY_IMAGE", scalar(o.xy)},
      {"ERRX2_IMAGE", scalar(o.errx2)},
      {"ERRY2_IMAGE", scalar(o.erry2)},
      {"ERRXY_IMAGE", scalar(o.errxy)},
      {"A_IMAGE", scalar(o.a)},
      {"B_IMAGE", scalar(o.b)},
      {"THETA_IMAGE", scalar(o.theta)},
      {"ELONGATION", [&](size_t i, int) { return double(float(o.a[i]) / float(o.b[i])); }},
      {"ELLIPTICITY", [&](size_t i, int) { return 1.0 - double(float(o.b[i]) / float(o.a[i])); }},
      {"CXX_IMAGE", scalar(o.cxx)},
      {"CYY_IMAGE", scalar(o.cyy)},
      {"CXY_IMAGE", scalar(o.cxy)},
      {"ISOAREA_IMAGE", scalar(o.isoarea)},
      {"ISOAREAF_IMAGE", scalar(o.isoareaf)},
      {"FLUX_ISO", scalar(o.flux_iso)},
      {"FLUXERR_ISO", scalar(o.fluxerr_iso)},
      {"MAG_ISO", [&](size_t i, int) { return mag(float(o.flux_iso[i]), zp); }},
      {"MAGERR_ISO",
       [&](size_t i, int) { return magerr(float(o.flux_iso[i]), float(o.fluxerr_iso[i])); }},
      {"FLUX_MAX", scalar(o.flux_max)},
      {"BACKGROUND", scalar(o.background)},
      {"THRESHOLD", scalar(o.threshold)},
      {"FLUX_AUTO", scalar(o.flux_auto)},
      {"FLUXERR_AUTO", scalar(o.fluxerr_auto)},
      {"MAG_AUTO", [&](size_t i, int) { return mag(float(o.flux_auto[i]), zp); }},
      {"MAGERR_AUTO",
       [&](size_t i, int) { return magerr(float(o.flux_auto[i]), float(o.fluxerr_auto[i])); }},
      {"KRON_RADIUS", scalar(o.kron_radius)},
      {"FLUX_APER", [&](size_t i, int k) { return o.flux_aper[i * naper + k]; }},
      {"FLUXERR_APER", [&](size_t i, int k) { return o.fluxerr_aper[i * naper + k]; }},
      {"MAG_APER", [&](size_t i, int k) { return mag(float(o.flux_aper[i * naper + k]), zp); }},
      {"MAGERR_APER",
       [&](size_t i, int k) {
         return magerr(float(o.flux_aper[i * naper + k]), float(o.fluxerr_aper[i * naper + k]));
       }},
      {"FLUX_RADIUS", [&](size_t i, int k) { return o.flux_radius[i * nfrac + k]; }},
      {"FWHM_IMAGE", scalar(o.fwhm)},
      {"FLAGS", scalar(o.flags)},
      {"X_WORLD", [&](size_t i, int) { return xw[i]; }},
      {"Y_WORLD", [&](size_t i, int) { return yw[i]; }},
      {"ALPHA_J2000", [&](size_t i, int) { return ra[i]; }},
      {"DELTA_J2000", [&](size_t i, int) { return dec[i]; }},
      {"ERRA_IMAGE", [&](size_t i, int) { return err_ellipse(i, 0); }},
      {"ERRB_IMAGE", [&](size_t i, int) { return err_ellipse(i, 1); }},
      {"ERRTHETA_IMAGE", [&](size_t i, int) { return err_ellipse(i, 2); }},
      {"ERRCXX_IMAGE", [&](size_t i, int) { return err_c(i, 0); }},
      {"ERRCYY_IMAGE", [&](size_t i, int) { return err_c(i, 1); }},
      {"ERRCXY_IMAGE", [&](size_t i, int) { return err_c(i, 2); }},
      {"ISO0", [&](size_t i, int) { return double(o.iso[i * kNIso + 0]); }},
      {"ISO1", [&](size_t i, int) { return double(o.iso[i * kNIso + 1]); }},
      {"ISO2", [&](size_t i, int) { return double(o.iso[i * kNIso + 2]); }},
      {"ISO3", [&](size_t i, int) { return double(o.iso[i * kNIso + 3]); }},
      {"ISO4", [&](size_t i, int) { return double(o.iso[i * kNIso + 4]); }},
      {"ISO5", [&](size_t i, int) { return double(o.iso[i * kNIso + 5]); }},
      {"ISO6", [&](size_t i, int) { return double(o.iso[i * kNIso + 6]); }},
      {"ISO7", [&](size_t i, int) { return double(o.iso[i * kNIso + 7]); }},
      {"X2_WORLD", [&](size_t i, int) { return ws[i].x2; }},
      {"Y2_WORLD", [&](size_t i, int) { return ws[i].y2; }},
      {"XY_WORLD", [&](size_t i, int) { return ws[i].xy; }},
      {"CXX_WORLD", [&](size_t i, int) { return double(ws[i].cxx); }},
      {"CYY_WORLD", [&](size_t i, int) { return double(ws[i].cyy); }},
      {"CXY_WORLD", [&](size_t i, int) { return double(ws[i].cxy); }},
      {"A_WORLD", [&](size_t i, int) { return double(ws[i].a); }},
      {"B_WORLD", [&](size_t i, int) { return double(ws[i].b); }},
      {"THETA_WORLD", [&](size_t i, int) { return double(ws[i].theta); }},
      // J2000 equatorial frames only (run.cpp refuses others): SExtractor's dtheta2000 is 0 up
      // to rounding.
      {"THETA_J2000", [&](size_t i, int) { return celestial ? fmod_m90_p90(ws[i].theta_sky + dtheta[i]) : 0.0; }},
      {"ERRX2_WORLD", [&](size_t i, int) { return we[i].x2; }},
      {"ERRY2_WORLD", [&](size_t i, int) { return we[i].y2; }},
      {"ERRXY_WORLD", [&](size_t i, int) { return we[i].xy; }},
      {"ERRCXX_WORLD", [&](size_t i, int) { return double(we[i].cxx); }},
      {"ERRCYY_WORLD", [&](size_t i, int) { return double(we[i].cyy); }},
      {"ERRCXY_WORLD", [&](size_t i, int) { return double(we[i].cxy); }},
      {"ERRA_WORLD", [&](size_t i, int) { return double(we[i].a); }},
      {"ERRB_WORLD", [&](size_t i, int) { return double(we[i].b); }},
      {"ERRTHETA_WORLD", [&](size_t i, int) { return double(we[i].theta); }},
      {"ERRTHETA_J2000", [&](size_t i, int) { return celestial ? fmod_m90_p90(we[i].theta_sky + dtheta[i]) : 0.0; }},
      // --- windowed world shapes, peak and native coordinates, polarisations
      {"X2WIN_WORLD", [&](size_t i, int) { return wws[i].x2; }},
      {"Y2WIN_WORLD", [&](size_t i, int) { return wws[i].y2; }},
      {"XYWIN_WORLD", [&](size_t i, int) { return wws[i].xy; }},
      {"CXXWIN_WORLD", [&](size_t i, int) { return double(wws[i].cxx); }},
      {"CYYWIN_WORLD", [&](size_t i, int) { return double(wws[i].cyy); }},
      {"CXYWIN_WORLD", [&](size_t i, int) { return double(wws[i].cxy); }},
      {"AWIN_WORLD", [&](size_t i, int) { return double(wws[i].a); }},
      {"BWIN_WORLD", [&](size_t i, int) { return double(wws[i].b); }},
      {"THETAWIN_WORLD", [&](size_t i, int) { return double(wws[i].theta); }},
      {"THETAWIN_SKY", [&](size_t i, int) { return double(wws[i].theta_sky); }},
      {"THETAWIN_J2000",
       [&](size_t i, int) { return celestial ? fmod_m90_p90(wws[i].theta_sky + dtheta[i]) : 0.0; }},
      {"ERRX2WIN_WORLD", [&](size_t i, int) { return wwe[i].x2; }},
      {"ERRY2WIN_WORLD", [&](size_t i, int) { return wwe[i].y2; }},
      {"ERRXYWIN_WORLD", [&](size_t i, int) { return wwe[i].xy; }},
      {"ERRCXXWIN_IMAGE", [&](size_t i, int) { return errwin_c(i, 0); }},
      {"ERRCYYWIN_IMAGE", [&](size_t i, int) { return errwin_c(i, 1); }},
      {"ERRCXYWIN_IMAGE", [&](size_t i, int) { return errwin_c(i, 2); }},
      {"ERRCXXWIN_WORLD", [&](size_t i, int) { return double(wwe[i].cxx); }},
      {"ERRCYYWIN_WORLD", [&](size_t i, int) { return double(wwe[i].cyy); }},
      {"ERRCXYWIN_WORLD", [&](size_t i, int) { return double(wwe[i].cxy); }},
      {"ERRAWIN_WORLD", [&](size_t i, int) { return double(wwe[i].a); }},
      {"ERRBWIN_WORLD", [&](size_t i, int) { return double(wwe[i].b); }},
      {"ERRTHETAWIN_WORLD", [&](size_t i, int) { return double(wwe[i].theta); }},
      {"ERRTHETAWIN_SKY", [&](size_t i, int) { return double(wwe[i].theta_sky); }},
      {"ERRTHETAWIN_J2000",
       [&](size_t i, int) { return celestial ? fmod_m90_p90(wwe[i].theta_sky + dtheta[i]) : 0.0; }},
      {"XPEAK_WORLD", [&](size_t i, int) { return xpw[i]; }},
      {"YPEAK_WORLD", [&](size_t i, int) { return ypw[i]; }},
      // The native frame's longitude and latitude (0 without celestial axes).
      {"ALPHAPEAK_SKY", [&](size_t i, int) { return aspk[i]; }},
      {"DELTAPEAK_SKY", [&](size_t i, int) { return dspk[i]; }},
      {"ALPHAPEAK_J2000", [&](size_t i, int) { return rapk[i]; }},
      {"DELTAPEAK_J2000", [&](size_t i, int) { return decpk[i]; }},
      {"ALPHA_SKY", [&](size_t i, int) { return as[i]; }},
      {"DELTA_SKY", [&](size_t i, int) { return ds[i]; }},
      {"ALPHAWIN_SKY", [&](size_t i, int) { return asw[i]; }},
      {"DELTAWIN_SKY", [&](size_t i, int) { return dsw[i]; }},
      {"THETA_SKY", [&](size_t i, int) { return double(ws[i].theta_sky); }},
      {"ERRTHETA_SKY", [&](size_t i, int) { return double(we[i].theta_sky); }},
      // Focal-plane (intermediate) coordinates, SExtractor's raw_to_red.
      {"X_FOCAL", [&](size_t i, int) { return wcs->focal(o.x[i] + 1, o.y[i] + 1).first; }},
      {"Y_FOCAL",
       [&](size_t i, int) { return wcs->focal(o.x[i] + 1, o.y[i] + 1).second; }},
      {"XPEAK_FOCAL",
       [&](size_t i, int) {
         return wcs->focal(o.xpeak[i] + 1.0, o.ypeak[i] + 1.0).first;
       }},
      {"YPEAK_FOCAL",
       [&](size_t i, int) {
         return wcs->focal(o.xpeak[i] + 1.0, o.ypeak[i] + 1.0).second;
       }},
      {"XWIN_FOCAL",
       [&](size_t i, int) { return wcs->focal(o.xwin[i] + 1, o.ywin[i] + 1).first; }},
      {"YWIN_FOCAL",
       [&](size_t i, int) { return wcs->focal(o.xwin[i] + 1, o.ywin[i] + 1).second; }},
      // SExtractor's coordinates for the MAMA plate scanner (astrom.c): the world coordinates
      // half a pixel down-left, swapped and scaled by 1 + MAMA_CORFLEX (3.3e-5).
      {"X_MAMA", [&](size_t i, int) { return mama(i).first; }},
      {"Y_MAMA", [&](size_t i, int) { return mama(i).second; }},
      {"POLAR_IMAGE", [&](size_t i, int) { return polar(float(o.a[i]), float(o.b[i])); }},
      {"POLAR_WORLD", [&](size_t i, int) { return double(ws[i].polar); }},
      {"POLARWIN_IMAGE", [&](size_t i, int) { return polarwin(i); }},
      {"POLARWIN_WORLD", [&](size_t i, int) { return double(wws[i].polar); }},
      {"CLASS_STAR", scalar(o.class_star)},
      {"DURATION_ANALYSIS", scalar(o.duration_analysis)},
      {"FWHMPSF_IMAGE", [&](size_t, int) { return double(static_cast<float>(config.seeing_fwhm)); }},
      {"FWHMPSF_WORLD",
       [&](size_t i, int) { return static_cast<float>(config.seeing_fwhm) * scale_deg(i); }},
      {"FLUX_ISOCOR", scalar(o.flux_isocor)},
      {"FLUXERR_ISOCOR", scalar(o.fluxerr_isocor)},
      {"MAG_ISOCOR", [&](size_t i, int) { return mag(o.flux_isocor[i], zp); }},
      {"MAGERR_ISOCOR",
       [&](size_t i, int) { return magerr(o.flux_isocor[i], o.fluxerr_isocor[i]); }},
      // SExtractor's computemags: FLUX_ISOCOR for crowded objects (FLAGS bit 1), else FLUX_AUTO.
      {"FLUX_BEST", [&](size_t i, int) { return best(i, false); }},
      {"FLUXERR_BEST", [&](size_t i, int) { return best(i, true); }},
      {"MAG_BEST", [&](size_t i, int) { return mag(float(best(i, false)), zp); }},
      {"MAGERR_BEST",
       [&](size_t i, int) { return magerr(float(best(i, false)), float(best(i, true))); }},
      {"THRESHOLDMAX", scalar(o.threshold)},  // SExtractor's obj->dthresh: the detection threshold
      // Surface brightness of a value in ADU per pixel.
      {"MU_THRESHOLD", [&](size_t i, int) { return mu(o.iso_thresh[i], i); }},
      {"MU_MAX", [&](size_t i, int) { return mu(static_cast<float>(o.flux_max[i]), i); }},
      {"FWHM_WORLD", [&](size_t i, int) { return static_cast<float>(o.fwhm[i]) * scale_deg(i); }},
      {"ISOAREA_WORLD", [&](size_t i, int) { return o.isoarea[i] * area_deg2(i); }},
      {"ISOAREAF_WORLD", [&](size_t i, int) { return o.isoareaf[i] * area_deg2(i); }},
      {"IMAFLAGS_ISO", [&](size_t i, int k) { return double(o.imaflags[i * nmap + k]); }},
      {"NIMAFLAGS_ISO", [&](size_t i, int k) { return double(o.nimaflags[i * nmap + k]); }},
      {"XWIN_IMAGE", [&](size_t i, int) { return o.xwin[i] + 1; }},
      {"YWIN_IMAGE", [&](size_t i, int) { return o.ywin[i] + 1; }},
      {"ERRX2WIN_IMAGE", scalar(o.errx2win)},
      {"ERRY2WIN_IMAGE", scalar(o.erry2win)},
      {"ERRXYWIN_IMAGE", scalar(o.errxywin)},
      {"ERRAWIN_IMAGE", scalar(o.errawin)},
      {"ERRBWIN_IMAGE", scalar(o.errbwin)},
      {"ERRTHETAWIN_IMAGE", scalar(o.errthetawin)},
      {"X2WIN_IMAGE", scalar(o.x2win)},
      {"Y2WIN_IMAGE", scalar(o.y2win)},
      {"XYWIN_IMAGE", scalar(o.xywin)},
      {"CXXWIN_IMAGE", scalar(o.cxxwin)},
      {"CYYWIN_IMAGE", scalar(o.cyywin)},
      {"CXYWIN_IMAGE", scalar(o.cxywin)},
      {"AWIN_IMAGE", scalar(o.awin)},
      {"BWIN_IMAGE", scalar(o.bwin)},
      {"THETAWIN_IMAGE", scalar(o.thetawin)},
      {"FLUX_WIN", scalar(o.flux_win)},
      {"FLUXERR_WIN", scalar(o.fluxerr_win)},
      {"MAG_WIN", [&](size_t i, int) { return mag(o.flux_win[i], zp); }},
      {"MAGERR_WIN", [&](size_t i, int) { return magerr(o.flux_win[i], o.fluxerr_win[i]); }},
      {"SNR_WIN",
       [&](size_t i, int) {
         // SExtractor: BIG (1e30) when the variance is not above 1/BIG.
         const double e = o.fluxerr_win[i];
         return e * e > 1e-30 ? double(o.flux_win[i] / o.fluxerr_win[i]) : 1e30;
       }},
      {"FLAGS_WIN", scalar(o.flags_win)},
      {"NITER_WIN", scalar(o.niter_win)},
      {"XWIN_WORLD", [&](size_t i, int) { return xww[i]; }},
      {"YWIN_WORLD", [&](size_t i, int) { return yww[i]; }},
      {"ALPHAWIN_J2000", [&](size_t i, int) { return raw[i]; }},
      {"DELTAWIN_J2000", [&](size_t i, int) { return decw[i]; }},
      {"ALPHA_B1950", [&](size_t i, int) { return b1950[i].alpha; }},
      {"DELTA_B1950", [&](size_t i, int) { return b1950[i].delta; }},
      {"ALPHAPEAK_B1950", [&](size_t i, int) { return b1950_peak[i].alpha; }},
      {"DELTAPEAK_B1950", [&](size_t i, int) { return b1950_peak[i].delta; }},
      {"ALPHAWIN_B1950", [&](size_t i, int) { return b1950_win[i].alpha; }},
      {"DELTAWIN_B1950", [&](size_t i, int) { return b1950_win[i].delta; }},
      {"THETA_B1950",
       [&](size_t i, int) { return fmod_m90_p90(ws[i].theta_sky + dtheta1950[i]); }},
      {"ERRTHETA_B1950",
       [&](size_t i, int) { return fmod_m90_p90(we[i].theta_sky + dtheta1950[i]); }},
      {"THETAWIN_B1950",
       [&](size_t i, int) { return fmod_m90_p90(wws[i].theta_sky + dtheta1950[i]); }},
      {"ERRTHETAWIN_B1950",
       [&](size_t i, int) { return fmod_m90_p90(wwe[i].theta_sky + dtheta1950[i]); }},
      // --- Petrosian photometry, growth curve, VIGNET
      {"FLUX_PETRO", scalar(o.flux_petro)},
      {"FLUXERR_PETRO", scalar(o.fluxerr_petro)},
      {"MAG_PETRO", [&](size_t i, int) { return mag(o.flux_petro[i], zp); }},
      {"MAGERR_PETRO", [&](size_t i, int) { return magerr(o.flux_petro[i], o.fluxerr_petro[i]); }},
      {"PETRO_RADIUS", scalar(o.petro_radius)},
      {"FLUX_GROWTH",
       [&](size_t i, int k) { return growth_at(&o.growth[i * kGrowthSteps], k, n_flux_growth); }},
      // SExtractor sets the steps only along with their curve (growth.c), else leaves 0.
      {"FLUX_GROWTHSTEP",
       [&](size_t i, int) { return n_flux_growth ? o.growth_rlim[i] / n_flux_growth : 0.0; }},
      {"MAG_GROWTH",
       [&](size_t i, int k) {
         const double g = growth_at(&o.growth[i * kGrowthSteps], k, n_mag_growth);
         return g > 0.0 ? zp - 2.5 * std::log10(g) : 99.0;  // growth.c, in double
       }},
      {"MAG_GROWTHSTEP",
       [&](size_t i, int) { return n_mag_growth ? o.growth_rlim[i] / n_mag_growth : 0.0; }},
      {"VIGNET", [&](size_t i, int k) { return double(o.vignet[i * vignet_size + k]); }},
      {"VIGNET_SHIFT",
       [&](size_t i, int k) { return double(o.vignet_shift[i * (o.vignet_shift.size() / n) + k]); }},
      // Differential geometry: 0 without a map, as SExtractor leaves them.
      {"DGEOX_IMAGE", [&](size_t i, int) { return o.dgeox.empty() ? 0.0 : double(o.dgeox[i]); }},
      {"DGEOY_IMAGE", [&](size_t i, int) { return o.dgeoy.empty() ? 0.0 : double(o.dgeoy[i]); }},
      {"DGEOXWIN_IMAGE",
       [&](size_t i, int) { return o.dgeoxwin.empty() ? 0.0 : double(o.dgeoxwin[i]); }},
      {"DGEOYWIN_IMAGE",
       [&](size_t i, int) { return o.dgeoywin.empty() ? 0.0 : double(o.dgeoywin[i]); }},
      {"VIGNET_DGEOX",
       [&](size_t i, int k) { return double(o.vignet_dgeox[i * (o.vignet_dgeox.size() / n) + k]); }},
      {"VIGNET_DGEOY",
       [&](size_t i, int k) { return double(o.vignet_dgeoy[i * (o.vignet_dgeoy.size() / n) + k]); }},
      {"FLAGS_WEIGHT", scalar(o.flags_weight)},
      {"NLOWWEIGHT_ISO", scalar(o.nlowweight)},
      {"NLOWDWEIGHT_ISO", scalar(o.nlowdweight)},
      {"VECTOR_ASSOC", [&](size_t i, int k) { return o.assoc[i * nassoc + k]; }},
      {"NUMBER_ASSOC", [&](size_t i, int) { return double(o.assoc_number[i]); }},
  };

  Table t;
  t.rows = n;
  t.columns.resize(params.size());
  // The getters only read (the world conversions are done above), so the columns fill in
  // parallel.
  std::vector<const Getter*> column_getter(params.size(), nullptr);
  for (size_t pi = 0; pi < params.size(); ++pi)
    if (!params[pi].spec->needs_wcs || wcs) column_getter[pi] = &getters.at(params[pi].spec->name);
  const long ncolumns = static_cast<long>(params.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1)
  for (long pi = 0; pi < ncolumns; ++pi) {
    const RequestedParam& p = params[static_cast<size_t>(pi)];
    Column& c = t.columns[static_cast<size_t>(pi)];
    c.name = p.spec->name;
    c.unit = p.spec->unit;
    c.description = p.spec->description;
    c.type = p.spec->type;
    c.print_format = p.spec->format;
    int size = p.size;
    const std::string name = c.name;
    if (name.find("_APER") != std::string::npos) size = std::min(size, naper);
    if (name == "FLUX_RADIUS") size = std::min(size, nfrac);
    c.repeat = size;
    if (name == "VIGNET") c.dims = vignet_dims;
    if (name == "VIGNET_SHIFT" || name == "VIGNET_DGEOX" || name == "VIGNET_DGEOY")
      c.dims = {p.width, p.height};
    c.values.assign(n * size, 0.0);
    const Getter* get = column_getter[static_cast<size_t>(pi)];
    if (!get) continue;                                   // no world frame built: zeros
    const bool to_float = c.type == ColumnType::Float32;  // SExtractor stores float
    for (size_t i = 0; i < n; ++i)
      for (int k = 0; k < size; ++k) {
        const double v = (*get)(i, k);
        c.values[i * size + k] = to_float ? static_cast<float>(v) : v;
      }
  }
  return t;
}

}  // namespace celeris::extract

namespace celeris::extract {

// `celeris extract -dp`: every parameter celeris computes, in the style of `source-extractor -dp`.
std::string parameter_list_text() {
  std::string out;
  char buf[256];
  for (const auto& p : parameter_table()) {
    std::string name = p.name;
    if (p.is_vector) name += "(n)";
    if (*p.unit)
      std::snprintf(buf, sizeof buf, "#%-24.24s %-57.57s [%s]\n", name.c_str(), p.description,
                    p.unit);
    else
      std::snprintf(buf, sizeof buf, "#%-24.24s %-57.57s\n", name.c_str(), p.description);
    out += buf;
  }
  return out;
}

}  // namespace celeris::extract
