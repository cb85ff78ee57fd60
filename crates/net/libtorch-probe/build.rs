//! Stops the build early, with a message saying what to run, when libtorch is
//! missing (see src/lib.rs).

#[path = "src/find.rs"]
mod find;

fn main() {
    for variable in find::LIBTORCH_VARIABLES {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    match find::libtorch_lib_dir() {
        Ok(lib_dir) => println!(
            "cargo:rerun-if-changed={}",
            lib_dir.join("libtorch_cpu.so").display()
        ),
        Err(message) => {
            // A plain message and exit status, not a panic: nothing here is a
            // bug, and a backtrace would bury the message.
            eprintln!("\n{message}.\n");
            std::process::exit(1);
        }
    }
}
