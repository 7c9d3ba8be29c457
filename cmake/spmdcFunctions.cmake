# CMake functions to build with spmdc (installed with the package; docs/ecosystem.md).
#
# spmdc_add_library(<name> SOURCES <file.ispc|.spmd>...
#                   [TARGETS <x86 target>...]     default: sse4-i32x4 avx2-i32x8 avx512skx-x16
#                   [FLAGS <spmdc flag>...] [INCLUDE_DIRECTORIES <dir>...]
#                   [DEFINITIONS <NAME[=VALUE]>...] [HEADER_DIR <dir>])
#   A static library of the sources compiled for the targets (with more than one, ISPC's
#   multi-target objects: each export function picks the best ISA at run time). Each source
#   <stem> gets the header <HEADER_DIR>/<stem>.h (ISPC's, `namespace ispc`), on the library's
#   include path; the library links spmdc::runtime. Includes are tracked through spmdc's
#   dependency files, so editing an included file rebuilds its users.
#
# spmdc_add_ptx(<name> SOURCE <file> [TARGET nvptx-sm_XX] [FLAGS <flag>...]
#               [INCLUDE_DIRECTORIES <dir>...] [DEFINITIONS <def>...] [HEADER_DIR <dir>])
#   Compiles <file> to PTX (default target nvptx-sm_80) and writes into HEADER_DIR:
#   <name>.ptx, <name>_host.h (spmdc's CUDA host header: kernel names, parameter structs,
#   launch helpers) and <name>_ptx.h, which embeds the PTX as
#   `static const char <name>_ptx[]` for cuModuleLoadData. The INTERFACE library <name> puts
#   HEADER_DIR on the include path and builds the files first.

set(_SPMDC_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/spmdcEmbed.cmake")

# Shared by both functions (a macro: it sets ARG_HEADER_DIR and `flags` in the caller): the
# default header directory, created, and the spmdc flags of FLAGS, INCLUDE_DIRECTORIES and
# DEFINITIONS.
macro(_spmdc_prepare name)
  if(NOT ARG_HEADER_DIR)
    set(ARG_HEADER_DIR "${CMAKE_CURRENT_BINARY_DIR}/${name}_include")
  endif()
  file(MAKE_DIRECTORY "${ARG_HEADER_DIR}")
  set(flags ${ARG_FLAGS})
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND flags "-I${dir}")
  endforeach()
  foreach(def IN LISTS ARG_DEFINITIONS)
    list(APPEND flags "-D${def}")
  endforeach()
endmacro()

function(spmdc_add_library name)
  cmake_parse_arguments(ARG "" "HEADER_DIR"
                        "SOURCES;TARGETS;FLAGS;INCLUDE_DIRECTORIES;DEFINITIONS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "spmdc_add_library(${name}): no SOURCES")
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS sse4-i32x4 avx2-i32x8 avx512skx-x16)
  endif()
  _spmdc_prepare(${name})
  set(objdir "${CMAKE_CURRENT_BINARY_DIR}/${name}.spmdc")
  file(MAKE_DIRECTORY "${objdir}")
  list(JOIN ARG_TARGETS "," target_list)
  list(LENGTH ARG_TARGETS target_count)

  set(objects)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    set(obj "${objdir}/${stem}.o")
    set(header "${ARG_HEADER_DIR}/${stem}.h")
    set(outputs "${obj}")
    set(byproducts "${header}")
    if(target_count GREATER 1)
      # ISPC's multi-target names: <stem>_<isa>.o and .h next to the dispatching ones.
      foreach(t IN LISTS ARG_TARGETS)
        string(REGEX REPLACE "-.*" "" isa "${t}")
        list(APPEND outputs "${objdir}/${stem}_${isa}.o")
        list(APPEND byproducts "${ARG_HEADER_DIR}/${stem}_${isa}.h")
      endforeach()
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      BYPRODUCTS ${byproducts}
      COMMAND spmdc::spmdc ${flags} --target=${target_list} -o "${obj}" -h "${header}"
              -M -MT "${obj}" -MF "${obj}.d" "${src}"
      DEPENDS "${src}" spmdc::spmdc
      DEPFILE "${obj}.d"
      COMMENT "spmdc ${stem} (${target_list})"
      VERBATIM)
    list(APPEND objects ${outputs})
  endforeach()

  add_library(${name} STATIC ${objects})
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CXX" IN_LIST languages)
    set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  else()
    set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  endif()
  target_include_directories(${name} PUBLIC "${ARG_HEADER_DIR}")
  target_link_libraries(${name} PUBLIC spmdc::runtime)
endfunction()

function(spmdc_add_ptx name)
  cmake_parse_arguments(ARG "" "SOURCE;TARGET;HEADER_DIR"
                        "FLAGS;INCLUDE_DIRECTORIES;DEFINITIONS" ${ARGN})
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "spmdc_add_ptx(${name}): no SOURCE")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET nvptx-sm_80)
  endif()
  _spmdc_prepare(${name})
  get_filename_component(src "${ARG_SOURCE}" ABSOLUTE)
  set(ptx "${ARG_HEADER_DIR}/${name}.ptx")
  set(host "${ARG_HEADER_DIR}/${name}_host.h")
  set(embedded "${ARG_HEADER_DIR}/${name}_ptx.h")
  add_custom_command(
    OUTPUT "${ptx}" "${host}"
    COMMAND spmdc::spmdc ${flags} --target=${ARG_TARGET} -o "${ptx}" -h "${host}"
            -M -MT "${ptx}" -MF "${ptx}.d" "${src}"
    DEPENDS "${src}" spmdc::spmdc
    DEPFILE "${ptx}.d"
    COMMENT "spmdc ${name} (${ARG_TARGET})"
    VERBATIM)
  add_custom_command(
    OUTPUT "${embedded}"
    COMMAND "${CMAKE_COMMAND}" "-DINPUT=${ptx}" "-DOUTPUT=${embedded}" "-DSYMBOL=${name}_ptx"
            -P "${_SPMDC_EMBED_SCRIPT}"
    DEPENDS "${ptx}" "${_SPMDC_EMBED_SCRIPT}"
    COMMENT "Embedding ${name}.ptx"
    VERBATIM)
  add_custom_target(${name}_files DEPENDS "${ptx}" "${host}" "${embedded}")
  add_library(${name} INTERFACE)
  add_dependencies(${name} ${name}_files)
  target_include_directories(${name} INTERFACE "${ARG_HEADER_DIR}")
endfunction()
