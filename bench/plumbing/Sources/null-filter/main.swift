import ArgumentParser
import UnixFilter

/// Every record read and parsed as a filter reads it, and written back as it came.
struct NullFilter: ParsableCommand {
    @OptionGroup var common: CommonOptions

    func run() throws {
        FilterRun.main(program: "null-filter", options: common) { run in
            try filterRecords(run) { $0.bytes }
        }
    }
}

NullFilter.main()
