extension Crawler {
    /// The effective options, as the run record keeps them (secrets removed by the caller).
    func optionsRecord(_ redactor: SecretRedactor) -> [String: String] {
        var options: [String: String] = [
            "concurrency": String(configuration.concurrency),
            "perHost": String(configuration.perHost),
            "ttlSeconds": String(Int(configuration.ttlSeconds)),
            "retries": String(configuration.retries),
            "refreshPages": String(configuration.refreshPages),
            "cacheMaxBytes": String(configuration.cacheMaxBytes),
        ]
        if let record = configuration.recordDirectory { options["record"] = record }
        if let replay = configuration.replayDirectory { options["replay"] = replay }
        if let deadline = configuration.deadlineSeconds { options["deadlineSeconds"] = String(deadline) }
        for source in configuration.sources {
            let name = source.name
            options["\(name).type"] = source.type
            options["\(name).url"] = redactor.redactURL(source.url)
            options["\(name).pageTTLSeconds"] = String(Int(source.pageTTL))
            // Header names only: the values are secrets.
            if !source.headers.isEmpty { options["\(name).headers"] = source.headers.map(\.name).joined(separator: ",") }
            switch source {
            case .pixabay(let config):
                options["\(name).pages"] = String(config.pages)
                options["\(name).perPage"] = String(config.perPage)
                options["\(name).images"] = config.variants.map(\.rawValue).joined(separator: ",")
                if let query = config.query { options["\(name).query"] = redactor.redact(query) }
            case .launches(let config):
                options["\(name).pages"] = String(config.pages)
                options["\(name).images"] = config.effectiveVariants.map(\.rawValue).joined(separator: ",")
                options["\(name).details"] = String(config.details)
                if let size = config.pageSize { options["\(name).pageSize"] = String(size) }
            case .array(let config):
                options["\(name).pages"] = String(config.pages)
                options["\(name).perPage"] = String(config.perPage)
                options["\(name).idField"] = config.idField
                options["\(name).imageField"] = config.imageField
            }
        }
        return options
    }
}
