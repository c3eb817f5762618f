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
        if let after = configuration.forgetAfterSeconds { options["forgetAfterSeconds"] = String(Int(after)) }
        for source in configuration.sources {
            let name = source.name
            options["\(name).type"] = source.type
            options["\(name).url"] = redactor.redactURL(source.url)
            options["\(name).pageTTLSeconds"] = String(Int(source.pageTTL))
            // Header names only: the values are secrets.
            if !source.headers.isEmpty { options["\(name).headers"] = source.headers.map(\.name).joined(separator: ",") }
            options["\(name).pages"] = String(source.pages)
            options["\(name).images"] = source.feed.variantList.joined(separator: ",")
            for (key, value) in source.feed.settings(redactor) { options["\(name).\(key)"] = value.recorded }
        }
        return options
    }
}
