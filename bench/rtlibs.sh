#!/bin/sh
# rtlibs.sh — prints the link flags of a C program linked with libtfsrt.a (the libraries meson.build gives the runtime; compiler/jit.c lists the same for tfsc -o).
# Usage (from another bench script): gcc ... "$BUILD/libtfsrt.a" $("$ROOT/bench/rtlibs.sh")
echo $(pkg-config --libs libxsmm openblas lapacke libprotobuf-c zlib libpng libjpeg libgif libpcre2-8 libcrypto libzip jansson \
  libgvc hdf5 ompi-c) -licuuc -licudata -lsnappy -lgmp -L/usr/lib/python3/dist-packages/numpy/random/lib -lnpyrandom -lm -lpthread -ldl
