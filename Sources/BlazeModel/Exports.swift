// A network borrows the caller's thread pool (`Network.Options.threadPool`): what names it
// comes with `import BlazeModel`.
@_exported import BlazeThreads
