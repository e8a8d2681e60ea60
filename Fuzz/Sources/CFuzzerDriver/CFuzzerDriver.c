// Header only; this file gives the target something to compile.
