/* Linked (whole-archive) only with the `cuda` feature; see build.rs.
 *
 * rustc links with --as-needed, so libtorch_cuda.so ends up in a binary only if
 * an object file refers to one of its symbols; nothing in Rust does. This
 * reference keeps it. at::cuda::warp_size() is exported by libtorch_cuda.so;
 * the C++ mangled name is a valid C identifier. */
extern int _ZN2at4cuda9warp_sizeEv(void);

int (*const sumito_keep_libtorch_cuda)(void) = &_ZN2at4cuda9warp_sizeEv;
