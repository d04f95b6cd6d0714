# Owns the include check of the layering (cmake -DSOURCE_DIR=<tree> -DTABLE=<layer table> -P this):
# fails, listing every offence, when a file under src/<layer>/ or include/smartarrays/<layer>/
# includes a header of a layer that <layer> may not use (TABLE: the SMARTARRAYS_ALLOWED_<layer>
# lists that cmake/layers.cmake generates), or when a folder there is neither a layer nor a program
# on top of them, so a new folder cannot slip past the check.
#
# A header's layer is the folder after smartarrays/ (public headers) or its first folder (a layer's
# private headers under src/); smartarrays.h belongs to capi; smartarrays/error.hpp and export.hpp
# are shared by every layer.
cmake_minimum_required(VERSION 3.20)
include(${TABLE})

set(offences)

# The layer of the header an include line names, or "" for one outside the layers.
function(header_layer line out)
  set(layer "")
  if(line MATCHES "#[ \t]*include[ \t]*[\"<]([^\">]+)[\">]")
    set(header ${CMAKE_MATCH_1})
    if(header STREQUAL "smartarrays.h")
      set(layer capi)
    elseif(header MATCHES "^smartarrays/([^/]+)/")
      set(layer ${CMAKE_MATCH_1})
    elseif(header MATCHES "^([^/]+)/" AND CMAKE_MATCH_1 IN_LIST SMARTARRAYS_LAYERS)
      set(layer ${CMAKE_MATCH_1})
    endif()
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

# Appends to offences every include in the files given after layer (a layer's, or "" for the
# headers directly under include/smartarrays/, which every layer shares) that reaches a layer it may
# not use.
function(check_files layer)
  foreach(file IN LISTS ARGN)
    file(RELATIVE_PATH shown ${SOURCE_DIR} ${file})
    file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS includes)
      header_layer("${line}" used)
      if(used STREQUAL "" OR used STREQUAL layer)
        continue()
      endif()
      string(STRIP "${line}" line)
      if(NOT used IN_LIST SMARTARRAYS_LAYERS)
        list(APPEND offences "${shown}: ${line}: ${used} is not a layer (SMARTARRAYS_LAYERS in CMakeLists.txt)")
      elseif(layer STREQUAL "")
        list(APPEND offences "${shown}: ${line}: a header every layer shares may not use ${used}")
      elseif(NOT used IN_LIST SMARTARRAYS_ALLOWED_${layer})
        string(REPLACE ";" " " allowed "${SMARTARRAYS_ALLOWED_${layer}}")
        list(APPEND offences "${shown}: ${line}: ${layer} may not use ${used} (it may use: ${allowed})")
      endif()
    endforeach()
  endforeach()
  set(offences ${offences} PARENT_SCOPE)
endfunction()

foreach(root src include/smartarrays)
  file(GLOB entries LIST_DIRECTORIES true RELATIVE ${SOURCE_DIR}/${root} ${SOURCE_DIR}/${root}/*)
  foreach(entry IN LISTS entries)
    if(NOT IS_DIRECTORY ${SOURCE_DIR}/${root}/${entry} OR entry IN_LIST SMARTARRAYS_ON_TOP)
      continue()
    endif()
    if(entry IN_LIST SMARTARRAYS_LAYERS)
      file(GLOB_RECURSE files ${SOURCE_DIR}/${root}/${entry}/*.cpp ${SOURCE_DIR}/${root}/${entry}/*.hpp
           ${SOURCE_DIR}/${root}/${entry}/*.h)
      check_files(${entry} ${files})
    else()
      list(APPEND offences "${root}/${entry}/ is not a layer: add it to SMARTARRAYS_LAYERS in CMakeLists.txt")
    endif()
  endforeach()
endforeach()
file(GLOB shared ${SOURCE_DIR}/include/smartarrays/*.hpp)
check_files("" ${shared})
file(GLOB c_header ${SOURCE_DIR}/include/smartarrays.h)
check_files(capi ${c_header})

if(offences)
  list(JOIN offences "\n  " report)
  message(FATAL_ERROR "layering: an include or folder breaks the layer table of CMakeLists.txt:\n  ${report}")
endif()
