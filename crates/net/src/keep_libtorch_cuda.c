/* Linked (whole-archive) only with the `cuda` feature; see build.rs.
 *
 * rustc links with --as-needed, so libtorch_cuda.so ends up in a binary only if
 * a linked object refers to one of its symbols; nothing in Rust does. This
 * reference keeps it. at::cuda::warp_size() is exported by libtorch_cuda.so;
 * its C++ mangled name is a valid C identifier.
 *
 * The reference sits in a constructor because rustc also links with
 * --gc-sections: an unreferenced variable's section would be dropped, and the
 * reference with it, while .init_array entries are always kept. The
 * constructor only stores the address (volatile, so it stays); it calls
 * nothing. */
extern int _ZN2at4cuda9warp_sizeEv(void);

int (*volatile sumito_keep_libtorch_cuda)(void);

__attribute__((constructor)) static void sumito_keep_libtorch_cuda_init(void) {
    sumito_keep_libtorch_cuda = &_ZN2at4cuda9warp_sizeEv;
}
