# `cmake --install BUILD --prefix PREFIX`: the libraries, headers (with the
# TableGen'd .inc files and the .td sources), qs-opt, qs-run and
# qs-lsp-server, and a CMake package, so that another compiler links the
# dialect, the passes and the pipelines without this source tree:
#
#   find_package(QuantStorage CONFIG REQUIRED)   # CMAKE_PREFIX_PATH=PREFIX
#   target_link_libraries(my-compiler PRIVATE QuantStorage::QSRegistration)
#
# The package finds the MLIR it was built against (the same LLVM version,
# exactly: the libraries are C++ and link against that libMLIR.so). Every
# exported library carries the include directories of PREFIX and of MLIR/LLVM.
# docs/Development.md "Using quant-storage from another project";
# test/Install/downstream.test builds test/Install/downstream against an
# install. Everything here is the component `quant-storage`; the Python
# package (python/CMakeLists.txt) is the component `python`, which only
# `pip install .` (scikit-build-core) installs.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(QS_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/QuantStorage)
set(QS_EXPORTED_LIBRARIES
  QSUtils QSDialect QSAnalysis QSTransforms QSConversionQSToLinalg
  QSConversionQSToGPU QSPipelines QSRunner QSCAPI QSRegistration
  QSCUDARuntime)

# Usage requirements that the build gets from directory-level settings
# (include_directories in CMakeLists.txt) and an installed library must carry:
# its headers, and the MLIR/LLVM headers that they include.
set(QS_UPSTREAM_INCLUDE_DIRS ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
list(REMOVE_DUPLICATES QS_UPSTREAM_INCLUDE_DIRS)
foreach(library ${QS_EXPORTED_LIBRARIES})
  target_include_directories(${library} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${library} SYSTEM INTERFACE
    "$<INSTALL_INTERFACE:${QS_UPSTREAM_INCLUDE_DIRS}>")
endforeach()

install(TARGETS ${QS_EXPORTED_LIBRARIES}
  EXPORT QuantStorageTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT quant-storage
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT quant-storage)
# The installed tools find libQSCUDARuntime.so beside them and libMLIR.so
# where it was at build time (Debian's /usr/lib/llvm-22/lib is not on the
# loader's path).
set_target_properties(qs-opt qs-run qs-lsp-server PROPERTIES
  INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")
install(TARGETS qs-opt qs-run qs-lsp-server
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT quant-storage)
# The mlir-opt plugin (lib/Plugin), for --load-dialect-plugin and
# --load-pass-plugin.
install(TARGETS QSPlugin
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT quant-storage)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/qs ${PROJECT_SOURCE_DIR}/include/qs-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT quant-storage
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/qs
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT quant-storage
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT QuantStorageTargets
  NAMESPACE QuantStorage::
  DESTINATION ${QS_INSTALL_CMAKE_DIR} COMPONENT quant-storage)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/QuantStorageConfig.cmake.in
  ${PROJECT_BINARY_DIR}/QuantStorageConfig.cmake
  INSTALL_DESTINATION ${QS_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/QuantStorageConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/QuantStorageConfig.cmake
  ${PROJECT_BINARY_DIR}/QuantStorageConfigVersion.cmake
  DESTINATION ${QS_INSTALL_CMAKE_DIR} COMPONENT quant-storage)
