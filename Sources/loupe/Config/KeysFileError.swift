import LoupeConfig

/// What is wrong with a `keys.toml`, and where: the one configuration-file error (``ConfigFileError``).
typealias KeysFileError = ConfigFileError
