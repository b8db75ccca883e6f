export interface StartParams {
    pid: number;
    client: {
        label: string;
        build: string;
    };
    features: {
        editing: {
            enabled: boolean;
            lint?: {
                hover?: boolean;
            };
        };
    };
    settings?: any;
    roots: Root[];
}

export interface Root {
    label: string;
    uri: string;
}

export interface StartResult {}

export type Persona = string;

interface FileRef {
    type: 'file';
    path: string;
    lines?: {
        from: number,
        to: number,
    }
}

interface UrlRef {
    type: 'url';
    url: string;
}

interface EverythingRef {
    type: 'everything';
}

export type Reference = FileRef | UrlRef | EverythingRef;

export interface AskParams {
    persona?: Persona;
    refs?: Reference[];
    order?: 'newest' | 'oldest';
    choice?: string | null;
    options?: Array<{
        label: string;
        hint?: string;
        picked: boolean;
    }> | null;
}

export interface AskResult {
    outcome: Outcome;
    env?: Record<string, string>;
}

interface EditOutcome {
    path: string;
    patch: string;
}

interface TextOutcome {
    lines: string[];
}

export type Outcome = EditOutcome | TextOutcome;

export interface ToolSchema {
    fields: { [key: string]: { type: string, hint?: string } },
    mandatory: string[],
}

interface LocalTools {
    type: 'local';
    tools: ToolSchema[];
}

interface RemoteTools {
    type: 'remote';
    command: string;
    tools?: ToolSchema[];
}

export type ToolsChanged = LocalTools | RemoteTools;
