/// The version every tool reports with `--version`.
public let mailpipeVersion = "0.1.0"
